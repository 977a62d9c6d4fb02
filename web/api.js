// api.js: window.strata, the page's scripting API (DESIGN.md contract 2):
// what tests, embedding pages (embed.js, the notebook helper) and a console
// use to drive the page: open traces, read and set the view, the selection
// and its args, compare and diff two runs, align files, search, and the
// panels' data (summary, flame graph, analysis, op statistics, idle gaps,
// collectives, tracks, notes). Each method is a thin call into the wasm
// module or into the module of the panel concerned; this file holds no
// state. The object is frozen.

const TOOLS = ['select', 'pan', 'zoom', 'timing']; // st_tool order (core/ui/ui.h)

// The page's parts, from app.js: panels, flame, argsSearch, diffTable,
// overview, roofline, opStats and notes are getters (they are made after
// window.strata is), read when a method is called.
export function createApi({
  M, str, withCString, open, statsNow, tracesNow, emit, ui, fileArgs, tracks, stream, coll, setLayout,
  SIDE_NO_MEMORY, FLOW_MODES, panels, flame, argsSearch, diffTable, overview, roofline, opStats, notes,
}) {
  const json = (ptr) => JSON.parse(str(ptr));

  return Object.freeze({
    open,
    stats: statsNow,
    // {start_us, end_us, scroll_y, tracks: trackState()} (null before a load).
    view: () => {
      const v = JSON.parse(str(M._st_wasm_view_json()));
      if (v) v.tracks = tracks.api.trackState();
      return v;
    },
    setView: (v) => {
      if (!v || !M._st_wasm_view_set(Number(v.start_us), Number(v.end_us))) {
        throw new Error('strata.setView: needs a loaded trace and finite start_us < end_us');
      }
      return JSON.parse(str(M._st_wasm_view_json()));
    },
    frameStats: () => JSON.parse(str(M._st_wasm_frame_stats_json())),
    // Streaming mode (stream.js): its state, and a promise that resolves once
    // the window the view wants is read (null state when nothing streams).
    streaming: () => (stream.active() ? stream.state() : null),
    settle: () => stream.settle(),
    // The selected events (at most 10000). args: decoded once the event has
    // been shown in the details panel (or fetched with argsOf), else null.
    selection: () =>
      json(M._st_wasm_selection_json(10000)).map((e) => ({ ...e, args: fileArgs.cached(fileArgs.handleOf(e), e.src)?.args ?? null })),
    // The args of the event at decoded offset src, re-read from the file (a B/E
    // slice's src: its B's and E's args merged, the E's winning on a duplicate key).
    argsOf: (src, handle) => fileArgs.argsFor(Number(src), handle === undefined ? undefined : Number(handle)),
    // The traces shown, in display order: [{handle, name, group, events, offset_us, format}].
    traces: () => tracesNow().map((t) => ({ ...t })),
    // Two runs: A the baseline, B the candidate, on one timeline (A's files above B's),
    // B aligned on A at the first step marker both have (else their starts).
    // Resolves {a, b}: each file's own stats, and the alignment used.
    compare: async (a, b, opts) => {
      await open([a, b], opts);
      const alignment = JSON.parse(str(M._st_wasm_compare_align()));
      const list = tracesNow();
      const own = (t) => JSON.parse(str(M._st_wasm_trace_stats_json(t.handle)));
      emit('strata:offsets', list);
      return { a: own(list[0]), b: own(list[1]), alignment };
    },
    // The diff table of the first two traces ({by: 'name'|'cat', range: 'all'|'window'|
    // {step: N}|{start_us, end_us}}): {rows, only_a, only_b, ...} (core/analysis/diff.h's JSON).
    diff: (opts) => {
      diffTable().show(true);
      const d = diffTable().compute(opts || {});
      if (!d) throw new Error('strata.diff: needs two traces shown (and the step in both)');
      return d;
    },
    // Two files or more: 'stacked' (one time axis) or 'side' (two panes, A left, B right,
    // zoom and pan synchronised); compareLayout() says which is shown.
    compareLayout: () => (M._st_wasm_side_by_side() ? 'side' : 'stacked'),
    setCompareLayout: (name) => {
      if (name !== 'side' && name !== 'stacked') throw new Error("strata.setCompareLayout: 'side' or 'stacked'");
      const shown = tracesNow().length;
      const got = setLayout(name);
      if (got !== name) {
        throw new Error(shown < 2 ? 'strata.setCompareLayout: side by side needs two traces shown'
          : `strata.setCompareLayout: ${SIDE_NO_MEMORY}`);
      }
      return got;
    },
    // Lines the files up on their selected events (one per file, e.g. ProfilerStep#550 in
    // every rank): {aligned: files moved together, traces}.
    // align('collectives'): every file on the clock its matched collectives give (a Promise
    // of {aligned, clock_offsets, unaligned, traces}; collectives.js).
    align: (by) => (by === 'collectives' ? coll.align()
      : { aligned: M._st_wasm_align_selection(), traces: tracesNow() }),
    // The collectives matched across the files shown, opened in their table (a Promise of
    // the JSON `strata analyze --json` adds: collectives, clock_offsets, critical_path, ...).
    collectives: () => coll.show(),
    // Selects collective i's kernels on every rank (its table row): the collective.
    selectCollective: (i) => coll.select(i),
    // Selects step N's critical path across ranks (outlined on the timeline): a Promise
    // of {step, total_us, segments: [{trace, kind, name, start_us, end_us}]} or null.
    criticalPath: (step) => coll.criticalPath(step),
    // A test hook: the arrows criticalPath(N) draws for its cross-rank edges (from the
    // blocker's kernel's start to the waiting rank's kernel's end), null once the selection
    // changes; frameStats().path_arrows: how many the last frame drew.
    pathArrows: () => coll.pathArrows(),
    // Moves one file on the shared timeline (its time 0 at offset_us); the traces after.
    setOffset: (handle, offsetUs) => {
      if (!M._st_wasm_set_offset(Number(handle), Number(offsetUs))) {
        throw new Error('strata.setOffset: needs the handle of one of several traces shown and a finite offset');
      }
      return tracesNow();
    },
    // Whole-trace name search (case-insensitive); non-matches are dimmed. With {args: true}
    // also in every event's args (a pass over the file): a Promise of {matches}.
    search: (text, opts) => {
      const t = String(text ?? '');
      ui.search.value = t;
      ui.searchArgs.checked = !!(opts && opts.args);
      if (opts && opts.args) return argsSearch().run(t);
      argsSearch().cancel();
      return { matches: withCString(t, (p) => M._st_wasm_search(p)) };
    },
    // The labelled tracks top to bottom, as the gutter shows them: [{label, section, pid,
    // kind, y, h, first_row, rows}] (y, h: content px; canvas y = 28 + y - view().scroll_y).
    tracks: () => json(M._st_wasm_tracks_json()),
    // The `strata bench` navigation script, drawn for real at the canvas size.
    bench: () => JSON.parse(str(M._st_wasm_bench_json())),
    // The drag tool: 'select' | 'pan' | 'zoom' | 'timing' (keys 1-4).
    tool: () => json(M._st_wasm_ui_state_json())?.tool ?? 'select',
    setTool: (name) => {
      const i = TOOLS.indexOf(String(name));
      if (i < 0) throw new Error(`strata.setTool: one of ${TOOLS.join(', ')}`);
      M._st_wasm_set_tool(i);
      return TOOLS[i];
    },
    // The flow arrows drawn: 'off' | 'selection' (the default: the selected event's chain)
    // | 'all' (also every arrow in view, bundled, under the slices); key l cycles them.
    flows: () => FLOW_MODES[M._st_wasm_set_flows(-1)],
    setFlows: (mode) => {
      const i = FLOW_MODES.indexOf(String(mode));
      if (i < 0) throw new Error(`strata.setFlows: one of ${FLOW_MODES.join(', ')}`);
      ui.flows.value = FLOW_MODES[M._st_wasm_set_flows(i)];
      return ui.flows.value;
    },
    // The timing mark ({start_us, end_us, dur_ns, dur_text}) in a list, [] if none.
    marks: () => {
      const m = json(M._st_wasm_ui_state_json())?.mark;
      return m ? [m] : [];
    },
    // The summary table shown ({source, events, names, rows:[{name, count, total_ns, self_ns,
    // avg_ns, min_ns, max_ns}]}), or null; summarizeWindow() makes one of the visible window.
    summary: () => panels().summary(),
    summarizeWindow: () => {
      panels().summarizeWindow();
      return panels().summary();
    },
    // Collapses every process section (or expands all if all are); true if all are collapsed.
    collapseAll: () => M._st_wasm_collapse_all() === 1,
    // Opens the flame graph ({from: 'selection'|'mark'|'window', source: 'samples'|'slices',
    // track: a range's thread}, each chosen as the button does when left out) and returns what
    // it shows: {from, start_us, end_us, track, threads: [{track, name, pid, tid}], tree: {source,
    // unit, events, nodes: [{i, name, depth, x, total, self, total_ns, self_ns, count}]}}, or
    // null; flameShown() is the open one (or null).
    flame: (opts) => flame().open(opts || {}),
    flameShown: () => flame().data(),
    // `strata analyze FILE... --json` of the files shown ({stepName, ops, gaps} as --step-name,
    // --ops, --gaps): {traces, steps, devices, per_step, idle_gaps, ranks, stragglers, memory,
    // ops, op_names} (core/analysis/analyze.h), times in each file's own microseconds.
    analyze: (opts) => {
      const d = overview().analyze(opts || {});
      if (!d) throw new Error('strata.analyze: needs a trace shown');
      return d;
    },
    // Opens (true) / closes (false) / toggles the overview panel (key o); the analysis it shows.
    overview: (on) => { overview().toggle(on); return overview().last(); },
    // `strata analyze --json`'s "efficiency" of the overview's analysis
    // (issue 33: {peakTflops, peakGbps} as --peak-tflops / --peak-gbps), or null.
    efficiency: (opts) => roofline().compute(opts || {}),
    // Selects every event named exactly `name` (slices and async, all files shown): how many.
    selectName: (name) => withCString(String(name), (p) => M._st_wasm_select_name(p)),
    // "Use as step": every event of that name is a step (the overview re-analyses with it).
    useAsStep: (name) => overview().useAsStep(name),
    // The ranks x steps heatmap shown (several files): {metric, rows: [{trace, name, straggler,
    // score}], steps, cell: {x, y, w, h}, cells, lo, hi, draw_ms}; heatmap(metric) picks 'step' |
    // 'compute' | 'idle' | 'comm_wait'; heatmap(analysis) draws that analysis JSON instead.
    heatmap: (arg) => {
      if (typeof arg === 'string') overview().heatmap.setMetric(arg);
      else if (arg && typeof arg === 'object') overview().heatmap.show(overview().heatmapData(arg));
      return overview().heatmap.state();
    },
    // Op statistics ({scope: 'trace'|'window'|'step'|'selection', step: N, top: N}), shown in
    // the panel: {scope, step, names, rows: [{name, count, total_us, self_us, mean_us, min_us,
    // p50_us, p90_us, p99_us, max_us}]} (`strata analyze --json`'s ops), or null.
    opStats: (opts) => opStats().opStats(opts || {}),
    // One op's duration histogram (opts as opStats; name null: of every event in the scope,
    // e.g. the selection): {name, scope, bins: [{bin, lo_us, hi_us, count}]};
    // selectHistogramBin(i) selects that bin's instances and returns how many.
    histogram: (name, opts) => opStats().histogram(name === null ? null : String(name), opts || {}),
    selectHistogramBin: (i) => opStats().selectBin(Number(i)),
    // The devices' idle gaps, longest first: {devices, highlighted, shown, gaps: [{index, trace,
    // device, start_us, end_us, dur_us, host: [{name, start_us, dur_us, overlap_us}]}]};
    // showIdleGaps(on) highlights them (g); goToIdleGap(i) shows one, returns the view.
    idleGaps: () => opStats().idleGaps(),
    // the idle cause's gaps shaded by a click on it in the Overview (app.h
    // st_app_cause_gaps_json): {device, cause, gaps: [[start_us, end_us]]} | null
    causeGaps: () => JSON.parse(str(M._st_wasm_cause_gaps_json())),
    showIdleGaps: (on) => opStats().showIdleGaps(on === undefined ? undefined : !!on),
    goToIdleGap: (i) => opStats().goToGap(Number(i)),
    // Which tracks show (tracks.js): setTrackFilter(text) (key t focuses the box), pin(id) /
    // unpin(id) (ids in tracks(); key p on the track under the mouse, or its label's pin mark),
    // setShowEmpty(bool) for the processes without events; each returns trackState():
    // {filter, tracks, shown, processes, empty, show_empty, pinned_h, pins}.
    ...tracks.api,
    // Notes ({t0, t1?, text}: microseconds as view(), a time without t1): addNote returns
    // {id, t0_us, t1_us, text}; notes() lists them in time order; removeNote(id) -> bool;
    // setNoteText(id, text); goToNote(id) shows it and returns the view; setNotes([{t0, t1?,
    // text}]) replaces them all.
    addNote: (n) => notes().add(n || {}),
    notes: () => notes().notes(),
    removeNote: (id) => notes().remove(id),
    setNoteText: (id, text) => notes().setText(id, text),
    goToNote: (id) => notes().go(id),
    setNotes: (list) => { notes().replaceAll(Array.isArray(list) ? list : []); return notes().notes(); },
  });
}
