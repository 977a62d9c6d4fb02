/* title.h: the window's title bar as the native window's status panel:
 * what the page's panels show in one line: the file, the tool, the flow
 * mode when it is not the default ("arrows: all"), the event under the
 * mouse (name and duration), how many are selected, the timing mark, and
 * the search box while it is open (typed after / or ctrl+F), the track
 * filter (its box while open, typed after t) with its count ("12 of 340
 * tracks"), the processes without events hidden (or shown, after e), and
 * a note being placed (after n: its time or range and its text), else how
 * many notes there are. And the key help, which ? prints to the terminal.
 */
#ifndef STRATA_NATIVE_TITLE_H
#define STRATA_NATIVE_TITLE_H

#include <stddef.h>

#include "app.h"
#include "native_input.h"

/* Prints the keys and mouse bindings (what ? shows in the page; the
 * native window has no overlay for it, so it goes to the terminal). */
void nv_help_print(void);

/* Writes the title for the app's state (the pane in use) into buf. */
void nv_title(st_app *app, const nv_input *in, const char *name, char *buf, size_t cap);

#endif
