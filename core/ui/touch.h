/* touch.h: touch gestures on the timeline, turned into st_ui calls.
 *
 * One finger drags the view: across, the time window; down and up, the
 * tracks. Two fingers pinch: the time window zooms around their midpoint
 * by the ratio of their distances, and follows the midpoint as it moves.
 * A finger that lifts without having moved more than ST_TOUCH_SLOP_PX (and
 * without a second finger) is a tap: a click at that point, which selects
 * with the select tool as a mouse click does. Positions are CSS px relative
 * to the canvas, as for the pointer calls. The recogniser is a plain struct
 * the caller owns (zeroed or st_touch_reset); calls return what st_ui
 * reports changed (ST_UI_*), ST_UI_HANDLED whenever the touch was taken.
 *
 *   st_touch g; st_touch_reset(&g);
 *   ch = st_touch_start(&g, ui, id, x, y);   // touchstart, per new finger
 *   ch = st_touch_move(&g, ui, id, x, y);    // touchmove, per moved finger
 *   ch = st_touch_end(&g, ui, id, x, y, 0);  // touchend (1: touchcancel)
 */
#ifndef STRATA_TOUCH_H
#define STRATA_TOUCH_H

#include "ui.h"

#define ST_TOUCH_SLOP_PX 8.0f /* a tap moves less than this */

typedef struct st_touch {
  int count;        /* fingers down that the gesture follows (0..2) */
  long id[2];       /* their identifiers */
  float x[2], y[2]; /* their last positions */
  float x0, y0;     /* where the first finger went down */
  int tap;          /* still a tap candidate */
} st_touch;

void st_touch_reset(st_touch *g);
unsigned st_touch_start(st_touch *g, st_ui *ui, long id, float x, float y);
unsigned st_touch_move(st_touch *g, st_ui *ui, long id, float x, float y);
unsigned st_touch_end(st_touch *g, st_ui *ui, long id, float x, float y, int cancelled);

#endif
