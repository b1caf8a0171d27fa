// Node addon over the same C runtime: event registration, start / stop, parameters, flush, and the
// slices of async regions. The TypeScript API (src/events) is built on these functions.
//
// The crossing. A probe pair from JavaScript is two calls into the addon, each with one small
// integer (the event id the registry gave out; ids are stable, lock-free to look up, and the same
// on every thread, so no per-addon handle table is needed and workers share nothing here). The
// probe functions are written against the plain N-API C interface, not node-addon-api: no
// CallbackInfo object, no std::string, no exception machinery on the fast path, only
// napi_get_cb_info + napi_get_value_uint32 + the runtime's start / stop (one TLS read, one clock
// read, a frame push). Measured in bench/node-probe-cost.ts (see bench/RESULTS.md "Node probes").
// Batching starts / stops in a shared buffer was not chosen: the context stack must be current
// when a sampling signal lands, so every start / stop has to reach the runtime when it happens.
//
// Every call into the runtime goes through ext.h's exported functions. Under
// `hyprof run -- node app.js` libhyprof.so is preloaded and those calls bind to it, so the process
// has one runtime (one registry, one raw file); otherwise they bind to this addon's own copy.
#include <napi.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "core/ext.h"
#include "hyprof.h"
}

namespace {

// ---- fast path: plain N-API ----

bool IdArg(napi_env env, napi_callback_info info, uint32_t *id, napi_value *second = nullptr) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 1) return false;
  if (second) *second = argc > 1 ? argv[1] : nullptr;
  return napi_get_value_uint32(env, argv[0], id) == napi_ok;
}

napi_value FastStart(napi_env env, napi_callback_info info) {
  uint32_t id;
  if (!IdArg(env, info, &id) || !hyprof_ext_start(id)) napi_throw_type_error(env, nullptr, "hyprof: unknown event handle");
  return nullptr;
}

napi_value FastStop(napi_env env, napi_callback_info info) {
  uint32_t id;
  if (!IdArg(env, info, &id) || !hyprof_ext_stop(id)) napi_throw_type_error(env, nullptr, "hyprof: unknown event handle");
  return nullptr;
}

// ---- async regions ----
// An async region instance lives in a slot of the calling thread's table (one JavaScript thread =
// one OS thread = one table; workers never share). Its statistics are recorded whole at
// settlement: inclusive = start to settlement; exclusive = the time its own code ran (its slices)
// minus regions inside those slices.

struct AsyncSlot {
  uint32_t id;       // the event whose context slices run in (a parameter event for param regions)
  uint32_t base;     // the region itself; recorded too when it differs from id
  uint64_t parent, context, start_ns, excl_ns, child_calls;
  bool live;
  uint64_t mstart[HYPROF_EXT_MAX_METRICS];   // the thread's metrics at the start (HYPROF_FOLD's instance)
};

thread_local std::vector<AsyncSlot> slots;
thread_local std::vector<uint32_t> free_slots;

AsyncSlot *SlotArg(napi_env env, napi_callback_info info, uint32_t *index) {
  uint32_t i;
  if (!IdArg(env, info, &i) || i >= slots.size() || !slots[i].live) {
    napi_throw_error(env, nullptr, "hyprof: unknown async region slot");
    return nullptr;
  }
  if (index) *index = i;
  return &slots[i];
}

void EndSlice(AsyncSlot *s) {
  uint64_t len = 0, child = 0, calls = 0;
  if (hyprof_ext_slice_end(s->id, &len, &child, &calls)) {
    s->excl_ns += len > child ? len - child : 0;
    s->child_calls += calls;
  }
}

// Keep an async region's slot, reusing a free one; returns its index (the handle JavaScript holds).
uint32_t StoreSlot(const AsyncSlot &s) {
  if (!free_slots.empty()) {
    uint32_t index = free_slots.back();
    free_slots.pop_back();
    slots[index] = s;
    return index;
  }
  slots.push_back(s);
  return static_cast<uint32_t>(slots.size() - 1);
}

// asyncBegin(id[, base]): the region starts under the current context, and its first slice (the
// code up to its first await) begins. `base`: the region a parameter event specialises. Returns the
// slot.
napi_value AsyncBegin(napi_env env, napi_callback_info info) {
  uint32_t id, base;
  napi_value second;
  if (!IdArg(env, info, &id, &second) || id == HYPROF_EXT_NO_EVENT) {
    napi_throw_type_error(env, nullptr, "hyprof: unknown event handle");
    return nullptr;
  }
  if (!second || napi_get_value_uint32(env, second, &base) != napi_ok) base = id;
  uint64_t parent = hyprof_ext_context();
  AsyncSlot s{id, base, parent, hyprof_ext_context_of(parent, id), hyprof_ext_now(), 0, 0, true, {}};
  hyprof_ext_metrics(s.mstart);
  uint32_t index = StoreSlot(s);
  hyprof_ext_count_child_call();
  hyprof_ext_slice_begin(id, parent, s.start_ns, s.mstart);
  napi_value r;
  napi_create_uint32(env, index, &r);
  return r;
}

// adopt(id): the sync region `id` on top of the stack returned a promise: continue it as an async
// region. Returns its slot, or -1 when `id` is not the innermost frame.
napi_value Adopt(napi_env env, napi_callback_info info) {
  uint32_t id, slice_event;
  uint64_t parent, start, excl, calls, mstart[HYPROF_EXT_MAX_METRICS];
  napi_value r;
  if (!IdArg(env, info, &id) || !hyprof_ext_adopt(id, &slice_event, &parent, &start, &excl, &calls, mstart)) {
    napi_create_int32(env, -1, &r);
    return r;
  }
  AsyncSlot s{slice_event, id, parent, hyprof_ext_context_of(parent, slice_event), start, excl, calls, true, {}};
  for (int m = 0; m < HYPROF_EXT_MAX_METRICS; m++) s.mstart[m] = mstart[m];
  uint32_t index = StoreSlot(s);
  napi_create_uint32(env, index, &r);
  return r;
}

napi_value SliceBegin(napi_env env, napi_callback_info info) {
  AsyncSlot *s = SlotArg(env, info, nullptr);
  if (s) hyprof_ext_slice_begin(s->id, s->parent, s->start_ns, s->mstart);
  return nullptr;
}

napi_value SliceEnd(napi_env env, napi_callback_info info) {
  AsyncSlot *s = SlotArg(env, info, nullptr);
  if (s) EndSlice(s);
  return nullptr;
}

// asyncEnd(slot[, unsettled]): settlement. Records the whole statistics and frees the slot. The
// time from start to settlement (the settle time) is kept beside them as a user event of the region
// (and of its parameter event): the profile's inclusive value is the region's own code and the
// regions inside it (docs/node.md), so this is where the wall time of an awaited region is seen.
// `unsettled` true: the thread exits with the region still pending; its time so far is recorded
// under another user event, not as a settle time.
napi_value AsyncEnd(napi_env env, napi_callback_info info) {
  uint32_t index;
  napi_value second;
  bool unsettled = false;
  AsyncSlot *s = nullptr;
  if (IdArg(env, info, &index, &second) && index < slots.size() && slots[index].live) s = &slots[index];
  if (!s) {
    napi_throw_error(env, nullptr, "hyprof: unknown async region slot");
    return nullptr;
  }
  if (second) napi_get_value_bool(env, second, &unsettled);
  uint64_t incl = hyprof_ext_now() - s->start_ns;
  uint64_t excl = s->excl_ns < incl ? s->excl_ns : incl;
  hyprof_ext_record(s->context, s->parent, s->id, 1, s->child_calls, incl, excl);
  if (s->base != s->id)
    hyprof_ext_record(hyprof_ext_context_of(s->parent, s->base), s->parent, s->base, 1, s->child_calls, incl, excl);
  hyprof_ext_fold_instance(s->id, s->start_ns, incl, s->mstart);   // HYPROF_FOLD: the instance, whole
  hyprof_ext_settled(s->base, incl, !unsettled);
  if (s->base != s->id) hyprof_ext_settled(s->id, incl, !unsettled);
  s->live = false;
  free_slots.push_back(index);
  return nullptr;
}

// ---- registration and the rest: node-addon-api ----

Napi::Value Event(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "hyprof: event name must be a string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string name = info[0].As<Napi::String>().Utf8Value();
  std::string group = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "TAU_USER";
  bool phase = info.Length() > 2 && info[2].ToBoolean().Value();
  uint32_t id = hyprof_ext_event(name.c_str(), group.c_str(), phase);
  // -1: measurement is off (HYPROF_DISABLE=1) or out of memory; the caller measures nothing.
  return Napi::Number::New(env, id == HYPROF_EXT_NO_EVENT ? -1.0 : static_cast<double>(id));
}

Napi::Value Param(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsNumber()) {
    Napi::TypeError::New(env, "hyprof: param(name: string, value: number)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  hyprof_param(info[0].As<Napi::String>().Utf8Value().c_str(), info[1].As<Napi::Number>().Int64Value());
  return env.Undefined();
}

// paramEvent(current, base, name, value): the parameter event for an async param region.
Napi::Value ParamEvent(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 4 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsString() || !info[3].IsNumber()) {
    Napi::TypeError::New(env, "hyprof: paramEvent(current: number, base: number, name: string, value: number)")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  uint32_t id = hyprof_ext_param_event(info[0].As<Napi::Number>().Uint32Value(), info[1].As<Napi::Number>().Uint32Value(),
                                       info[2].As<Napi::String>().Utf8Value().c_str(),
                                       info[3].As<Napi::Number>().Int64Value());
  return Napi::Number::New(env, id == HYPROF_EXT_NO_EVENT ? -1.0 : static_cast<double>(id));
}

Napi::Value Flush(const Napi::CallbackInfo &info) {
  hyprof_flush();
  return info.Env().Undefined();
}

Napi::Value RegisterThread(const Napi::CallbackInfo &info) {
  hyprof_register_thread();
  if (info.Length() > 0 && info[0].IsString()) hyprof_set_thread_name(info[0].As<Napi::String>().Utf8Value().c_str());
  return info.Env().Undefined();
}

Napi::Value Warn(const Napi::CallbackInfo &info) {
  if (info.Length() > 0 && info[0].IsString()) hyprof_ext_warn(info[0].As<Napi::String>().Utf8Value().c_str());
  return info.Env().Undefined();
}

void SetRaw(Napi::Env env, Napi::Object exports, const char *name, napi_callback cb) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, nullptr, &fn);
  exports.Set(name, Napi::Value(env, fn));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("event", Napi::Function::New(env, Event));
  SetRaw(env, exports, "start", FastStart);
  SetRaw(env, exports, "stop", FastStop);
  exports.Set("param", Napi::Function::New(env, Param));
  exports.Set("paramEvent", Napi::Function::New(env, ParamEvent));
  exports.Set("flush", Napi::Function::New(env, Flush));
  exports.Set("registerThread", Napi::Function::New(env, RegisterThread));
  exports.Set("warn", Napi::Function::New(env, Warn));
  SetRaw(env, exports, "asyncBegin", AsyncBegin);
  SetRaw(env, exports, "adopt", Adopt);
  SetRaw(env, exports, "sliceBegin", SliceBegin);
  SetRaw(env, exports, "sliceEnd", SliceEnd);
  SetRaw(env, exports, "asyncEnd", AsyncEnd);
  return exports;
}

}  // namespace

NODE_API_MODULE(hyprof_addon, Init)
