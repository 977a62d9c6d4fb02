// bench_import_simdjson.cpp: the reference for strata's import benchmark
// (issue 3, item 7). Benchmark-only; built by CMake only when Debian's
// libsimdjson-dev is found.
//
//   bench_import_simdjson FILE [--dom] [--reps N]
//
// Reads FILE (plain Chrome Trace Event JSON, array or object form) into a
// padded buffer, parses it with simdjson (On-Demand by default, the DOM API
// with --dom), single-threaded, and walks every event of the event list
// (the top-level array, or "traceEvents" of the object form) reading ph,
// ts, dur, name, pid and tid. A checksum over what was read is printed so
// nothing can be optimised away. Prints one JSON object:
//   {"api", "bytes", "events", "read_ms", "parse_walk_ms", "parse_walk_cpu_ms"
//    (thread CPU time), "total_ms",
//    "mb_per_s" (bytes / total_ms), "parse_mb_per_s" (bytes / parse_walk_ms),
//    "checksum"}
// With --reps N the parse+walk runs N times on the same buffer and the
// fastest run is reported (read_ms is the one read).
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <time.h>

using namespace simdjson;
using simdjson::ondemand::raw_json_string;

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// CPU time of this thread (leaves out time given to other processes)
double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct acc {
  uint64_t events = 0;
  uint64_t sum = 0;
  double tsum = 0;
};

// ---- On-Demand -------------------------------------------------------------

// pid/tid may be numbers or strings; ts/dur numbers (or strings)
template <class V> uint64_t id_of(V v) {
  ondemand::json_type t;
  if (v.type().get(t)) return 0;
  if (t == ondemand::json_type::number) {
    double d;
    if (!v.get_double().get(d)) return (uint64_t)(int64_t)d;
    return 0;
  }
  if (t == ondemand::json_type::string) {
    std::string_view s;
    if (!v.get_string().get(s)) return s.size() * 131 + (s.empty() ? 0 : (uint8_t)s[0]);
  }
  return 0;
}

template <class V> double num_of(V v) {
  ondemand::json_type t;
  if (v.type().get(t)) return 0;
  if (t == ondemand::json_type::number) {
    double d;
    if (!v.get_double().get(d)) return d;
  } else if (t == ondemand::json_type::string) {
    std::string_view s;
    if (!v.get_string().get(s)) return (double)s.size();
  }
  return 0;
}

bool walk_event_od(ondemand::object obj, acc &a) {
  for (auto field : obj) {
    raw_json_string key;
    if (field.key().get(key)) return false;
    ondemand::value v;
    if (field.value().get(v)) return false;
    if (key == "ph" || key == "name") {
      std::string_view s;
      if (!v.get_string().get(s)) a.sum += s.size() + (s.empty() ? 0 : (uint8_t)s[0]);
    } else if (key == "ts" || key == "dur") {
      a.tsum += num_of(v);
    } else if (key == "pid" || key == "tid") {
      a.sum += id_of(v);
    }
    // other values (args, cat, ...) are skipped by the iterator
  }
  a.events++;
  return true;
}

bool walk_array_od(ondemand::array arr, acc &a) {
  for (auto el : arr) {
    ondemand::object obj;
    if (el.get_object().get(obj)) return false;
    if (!walk_event_od(obj, a)) return false;
  }
  return true;
}

bool run_ondemand(const padded_string &json, acc &a) {
  ondemand::parser parser;
  ondemand::document doc;
  if (parser.iterate(json).get(doc)) return false;
  ondemand::json_type t;
  if (doc.type().get(t)) return false;
  if (t == ondemand::json_type::array) {
    ondemand::array arr;
    if (doc.get_array().get(arr)) return false;
    return walk_array_od(arr, a);
  }
  ondemand::object top;
  if (doc.get_object().get(top)) return false;
  for (auto field : top) {
    raw_json_string key;
    if (field.key().get(key)) return false;
    if (key == "traceEvents") {
      ondemand::array arr;
      if (field.value().get_array().get(arr)) return false;
      if (!walk_array_od(arr, a)) return false;
    }
  }
  return true;
}

// ---- DOM ----------------------------------------------------------------------

uint64_t id_dom(dom::element e) {
  if (e.is_number()) return (uint64_t)(int64_t) double(e.get_double().value_unsafe());
  if (e.is_string()) {
    std::string_view s = e.get_string().value_unsafe();
    return s.size() * 131 + (s.empty() ? 0 : (uint8_t)s[0]);
  }
  return 0;
}

double num_dom(dom::element e) {
  if (e.is_number()) return e.get_double().value_unsafe();
  if (e.is_string()) return (double)e.get_string().value_unsafe().size();
  return 0;
}

bool walk_array_dom(dom::array arr, acc &a) {
  for (dom::element el : arr) {
    dom::object obj;
    if (el.get_object().get(obj)) return false;
    for (dom::key_value_pair kv : obj) {
      std::string_view k = kv.key;
      if (k == "ph" || k == "name") {
        if (kv.value.is_string()) {
          std::string_view s = kv.value.get_string().value_unsafe();
          a.sum += s.size() + (s.empty() ? 0 : (uint8_t)s[0]);
        }
      } else if (k == "ts" || k == "dur") {
        a.tsum += num_dom(kv.value);
      } else if (k == "pid" || k == "tid") {
        a.sum += id_dom(kv.value);
      }
    }
    a.events++;
  }
  return true;
}

bool run_dom(dom::parser &parser, const padded_string &json, acc &a) {
  dom::element doc;
  if (parser.parse(json).get(doc)) return false;
  if (doc.is_array()) return walk_array_dom(doc.get_array().value_unsafe(), a);
  dom::object top;
  if (doc.get_object().get(top)) return false;
  dom::array arr;
  if (top["traceEvents"].get_array().get(arr)) return false;
  return walk_array_dom(arr, a);
}

} // namespace

int main(int argc, char **argv) {
  const char *file = nullptr;
  bool dom_api = false;
  long reps = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dom"))
      dom_api = true;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = strtol(argv[++i], nullptr, 10);
    else if (!file)
      file = argv[i];
    else
      file = nullptr, i = argc;
  }
  if (!file || reps < 1) {
    fprintf(stderr, "usage: bench_import_simdjson FILE [--dom] [--reps N]\n");
    return 2;
  }
  double r0 = now_ms();
  padded_string json;
  if (padded_string::load(file).get(json)) {
    fprintf(stderr, "bench_import_simdjson: %s: cannot read\n", file);
    return 1;
  }
  double read_ms = now_ms() - r0;
  double best = 1e300, best_cpu = 1e300;
  acc result;
  dom::parser dparser; // reused across reps, as a long-running reader would
  for (long r = 0; r < reps; r++) {
    acc a;
    double t0 = now_ms(), c0 = cpu_ms();
    bool ok = dom_api ? run_dom(dparser, json, a) : run_ondemand(json, a);
    double ms = now_ms() - t0, cms = cpu_ms() - c0;
    if (!ok) {
      fprintf(stderr, "bench_import_simdjson: %s: parse error\n", file);
      return 1;
    }
    if (ms < best) best = ms;
    if (cms < best_cpu) best_cpu = cms;
    result = a;
  }
  double bytes = (double)json.size();
  double total = read_ms + best;
  printf("{\"api\":\"%s\",\"bytes\":%.0f,\"events\":%llu,\"read_ms\":%.3f,\"parse_walk_ms\":%.3f,"
         "\"parse_walk_cpu_ms\":%.3f,"
         "\"total_ms\":%.3f,\"mb_per_s\":%.1f,\"parse_mb_per_s\":%.1f,\"checksum\":%llu}\n",
         dom_api ? "dom" : "ondemand", bytes, (unsigned long long)result.events, read_ms, best,
         best_cpu, total, bytes / 1e6 / (total / 1e3), bytes / 1e6 / (best / 1e3),
         (unsigned long long)(result.sum + (uint64_t)result.tsum));
  return 0;
}
