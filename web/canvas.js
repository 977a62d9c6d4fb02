// canvas.js: the timeline canvas's geometry, told to the core: its size and
// the device pixel ratio (st_wasm_resize; again when the window moves to a
// screen of another density), and the part of it the open panels (the
// #stage > aside elements) cover (st_wasm_set_cover).

// The label column at the canvas's left (CSS px; core/view/view.h
// ST_VIEW_GUTTER_W): the timeline is right of it.
export const TIMELINE_GUTTER_PX = 220;

export function createCanvas({ M, canvas }) {
  function resize() {
    if (!M) return;
    const r = canvas.getBoundingClientRect();
    M._st_wasm_resize(r.width, r.height, window.devicePixelRatio || 1);
  }

  function watchDpr() {
    const mq = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    mq.addEventListener(
      'change',
      () => {
        resize();
        watchDpr();
      },
      { once: true },
    );
  }

  // The part of the canvas the open panels cover, from its top and from its
  // bottom (a panel nearer the top covers down to its bottom edge, else up from
  // its top edge), told to the core (st_wasm_set_cover): a navigation (search,
  // an Overview figure, a heatmap cell, a diff row, an event's link) brings its
  // target into the part no panel covers, and moves it out from under a panel
  // that opens or grows.
  let coverSent = '';
  function updateCover() {
    if (!M) return;
    const c = canvas.getBoundingClientRect();
    let top = 0, bottom = 0;
    for (const el of document.querySelectorAll('#stage > aside')) {
      if (el.hidden || !el.offsetParent) continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      if (r.right <= c.left + TIMELINE_GUTTER_PX || r.left >= c.right || r.bottom <= c.top || r.top >= c.bottom) continue;
      if (r.top - c.top < c.bottom - r.bottom) top = Math.max(top, r.bottom - c.top);
      else bottom = Math.max(bottom, c.bottom - r.top);
    }
    const key = `${Math.ceil(top)},${Math.ceil(bottom)}`;
    if (key === coverSent) return;
    coverSent = key;
    M._st_wasm_set_cover(Math.ceil(top), Math.ceil(bottom));
  }

  function watchCover() {
    const ro = new ResizeObserver(updateCover);
    ro.observe(canvas);
    for (const el of document.querySelectorAll('#stage > aside')) ro.observe(el);
    new MutationObserver(updateCover).observe(document.getElementById('stage'), { attributes: true, subtree: true, attributeFilter: ['hidden'] });
    updateCover();
  }

  return { resize, watchDpr, watchCover };
}
