// tracks.js: which tracks the timeline shows (core/app/app_tracks.c): the track
// filter box (key t; Esc clears it) and its count ("12 of 340 tracks"), pinned
// tracks and processes without events, and their part of window.strata. The
// state lives in the core (every pane's layout); this file only asks for it and
// shows it. Names typed or read are set as values / textContent only.
//
// The state, as trackState() returns it: {filter, tracks, shown, processes,
// empty, show_empty, pinned_h, pins: [ids]}; tracks: labelled tracks of the
// sections shown without a filter, shown: those the filter keeps, empty:
// processes without events (hidden unless show_empty, or unless every process
// is without events: then they all show). A track's id ("<file>.<pid>.<k>") is
// in tracks() too.

export function createTracks({ M, str, withCString, fmtCount, canvas }) {
  const box = document.getElementById('track-filter');
  const count = document.getElementById('track-count');

  const state = () => {
    if (!M) return null;
    return JSON.parse(str(M._st_wasm_tracks_state_json()));
  };

  // The box and the count agree with the core; panels (Info) hear 'strata:tracks'.
  function refresh() {
    const s = state();
    if (document.activeElement !== box) box.value = s ? s.filter : '';
    count.textContent = s && s.filter ? `${fmtCount(s.shown)} of ${fmtCount(s.tracks)} tracks` : '';
    window.dispatchEvent(new CustomEvent('strata:tracks', { detail: s }));
    return s;
  }

  const setFilter = (text) => withCString(String(text ?? ''), (p) => M._st_wasm_set_track_filter(p));

  box.addEventListener('input', () => setFilter(box.value));
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { // clears the filter and hands the keys back to the timeline
      e.preventDefault();
      e.stopPropagation();
      box.value = '';
      setFilter('');
      canvas.focus();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      canvas.focus();
    }
  });
  window.addEventListener('strata:loaded', refresh);

  const idOf = (t) => (t && typeof t === 'object' ? t.id : t);
  const pinOrThrow = (t, on, name) => {
    const id = String(idOf(t) ?? '');
    if (!state() || !withCString(id, (p) => M._st_wasm_pin(p, on ? 1 : 0))) {
      throw new Error(`strata.${name}: no track with id "${id}" (tracks() lists the ids), or too many pinned`);
    }
    return state();
  };

  return {
    refresh,
    focus() {
      box.focus();
      box.select();
    },
    api: {
      // Keeps the tracks whose process, thread, track or file name contains text
      // (case ignored; '' shows all): the state.
      setTrackFilter: (text) => {
        const t = String(text ?? '');
        box.value = t;
        if (!state() || !setFilter(t)) throw new Error('strata.setTrackFilter: needs a trace shown');
        return state();
      },
      trackState: () => state(),
      // Pins / unpins a track (its id, or an entry of tracks()): the state.
      pin: (t) => pinOrThrow(t, true, 'pin'),
      unpin: (t) => pinOrThrow(t, false, 'unpin'),
      // Shows (true) or hides (false, the default) the processes without events.
      setShowEmpty: (on) => {
        if (!state()) throw new Error('strata.setShowEmpty: needs a trace shown');
        M._st_wasm_set_show_empty(on ? 1 : 0);
        return state();
      },
    },
  };
}
