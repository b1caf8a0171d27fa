// V8's JIT code events into the log (jit_log.h): the names and line tables of JavaScript code,
// recorded in memory as V8 creates, moves and frees code, so resolve can name a sampled address and
// give the line being run (docs/node.md, "JavaScript frames in samples").
//
// This is V8's C++ interface, not N-API: this object is built for one Node ABI (node-gyp builds it
// from source at install, binding.gyp target hyprof_v8) and loaded in each JavaScript thread: by the
// preload `hyprof run` gives node (src/events/v8-jit-preload.cts) and by the Node API module.
//
// What V8 (11.3, Node 20) sends, in this order, on the thread that creates the code:
//   CODE_START_LINE_INFO_RECORDING, CODE_ADD_LINE_POS_INFO per (pc offset, source position),
//   CODE_END_LINE_INFO_RECORDING with the code's start, then CODE_ADDED for that start with its name
//   and script. Only optimised code (TurboFan) and bytecode carry positions; baseline code (Sparkplug)
//   and the interpreter's per-function trampolines (--interpreted-frames-native-stack) carry none.
// CODE_MOVED comes from the garbage collector, possibly on its helper threads. Bytecode itself is
// left out (a sampled PC is never inside it); the lines and positions it spans are kept (AddRange).
#include <node.h>
#include <v8.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "jit_log.h"
#include "log_fd.h"
}

namespace {

// The positions of one code object, from START to END of its line info recording.
struct Positions {
  std::vector<std::pair<uint32_t, uint32_t>> at;  // (pc offset, source position)
  uintptr_t start = 0;
};

// The last completed recording of this thread, waiting for its CODE_ADDED.
thread_local Positions *pending = nullptr;

void DropPending() {
  delete pending;
  pending = nullptr;
}

// The recording that belongs to this CODE_ADDED (V8 may log other code in between, the interpreter's
// trampoline copy of a function between its bytecode's recording and the bytecode's CODE_ADDED), or
// null. Taken: the caller owns it.
Positions *TakePending(const v8::JitCodeEvent *e) {
  if (!pending || pending->start != reinterpret_cast<uintptr_t>(e->code_start)) return nullptr;
  Positions *p = pending;
  pending = nullptr;
  return p;
}

// One RANGE record per function whose bytecode carries positions: u32 first line, u32 last line,
// u32 name bytes, u32 0, u32 first position, u32 last position, name (the name its compiled code has,
// but for the tier mark). Resolve tells by it a position of the function from a position of a
// function inlined into its optimised code (V8 gives source positions without saying which inlined
// function they belong to). Positions, not only lines: a minified file holds many functions on one
// line.
void AddRange(const v8::JitCodeEvent *e) {
  Positions *pos = TakePending(e);
  if (!pos || pos->at.empty() || e->script.IsEmpty()) {
    delete pos;
    return;
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const auto &p : pos->at) {
    if (p.second < lo) lo = p.second;
    if (p.second > hi) hi = p.second;
  }
  delete pos;
  v8::HandleScope scope(e->isolate);  // line ends exist: see AddCode
  int first = e->script->GetLineNumber(static_cast<int>(lo)), last = e->script->GetLineNumber(static_cast<int>(hi));
  if (first < 0 || last < first) return;
  size_t name_len = e->name.len > 4096 ? 4096 : e->name.len;
  auto *p = static_cast<uint8_t *>(hp_jit_log_reserve(24 + name_len));
  if (!p) return;
  uint32_t head[6] = {static_cast<uint32_t>(first) + 1, static_cast<uint32_t>(last) + 1, static_cast<uint32_t>(name_len), 0, lo, hi};
  memcpy(p, head, 24);
  memcpy(p + 24, e->name.str, name_len);
  hp_jit_log_commit(p, 24 + name_len, HP_JIT_RANGE_POS);
}

// One CODE record: u64 start, u64 size, u32 code type, u32 name bytes, u32 entries, u32 0,
// (u32 pc offset, u32 line, u32 position)[entries], name. Lines are 1-based, positions V8's source
// positions (offsets into the script); an entry only where the position changes.
void AddCode(const v8::JitCodeEvent *e) {
  struct Entry {
    uint32_t offset, line, position;
  };
  std::vector<Entry> entries;
  Positions *pos = TakePending(e);
  if (pos && !e->script.IsEmpty()) {
    // GetLineNumber allocates the script's table of line ends the first time (a heap allocation, which
    // may start a collection, is no thing to do inside V8's code logging). It does not here: V8 has
    // made that table before this event, to put the function's line:column into the code's name.
    v8::HandleScope scope(e->isolate);
    for (const auto &p : pos->at) {
      if (!entries.empty() && entries.back().position == p.second) continue;
      int line = e->script->GetLineNumber(static_cast<int>(p.second));
      if (line < 0) continue;
      entries.push_back({p.first, static_cast<uint32_t>(line) + 1, p.second});
    }
  }
  delete pos;
  size_t name_len = e->name.len > 4096 ? 4096 : e->name.len;
  size_t len = 32 + entries.size() * 12 + name_len;
  auto *p = static_cast<uint8_t *>(hp_jit_log_reserve(len));
  if (!p) return;
  uint64_t start = reinterpret_cast<uintptr_t>(e->code_start), size = e->code_len;
  uint32_t head[4] = {static_cast<uint32_t>(e->code_type), static_cast<uint32_t>(name_len),
                      static_cast<uint32_t>(entries.size()), 0};
  memcpy(p, &start, 8);
  memcpy(p + 8, &size, 8);
  memcpy(p + 16, head, 16);
  uint8_t *q = p + 32;
  for (const auto &x : entries) {
    memcpy(q, &x, 12);
    q += 12;
  }
  memcpy(q, e->name.str, name_len);
  hp_jit_log_commit(p, len, HP_JIT_CODE_POS);
}

// MOVE: u64 from, u64 to, u64 size. REMOVE: u64 start, u64 size.
void AddWords(uint32_t type, std::initializer_list<uint64_t> words) {
  auto *p = static_cast<uint64_t *>(hp_jit_log_reserve(words.size() * 8));
  if (!p) return;
  size_t i = 0;
  for (uint64_t w : words) p[i++] = w;
  hp_jit_log_commit(p, words.size() * 8, type);
}

void OnCodeEvent(const v8::JitCodeEvent *e) {
  switch (e->type) {
    case v8::JitCodeEvent::CODE_ADDED:
      if (e->code_type == v8::JitCodeEvent::BYTE_CODE)
        AddRange(e);
      else
        AddCode(e);
      break;
    case v8::JitCodeEvent::CODE_MOVED:
      if (e->code_type != v8::JitCodeEvent::BYTE_CODE)
        AddWords(HP_JIT_MOVE, {reinterpret_cast<uintptr_t>(e->code_start), reinterpret_cast<uintptr_t>(e->new_code_start),
                               e->code_len});
      break;
    case v8::JitCodeEvent::CODE_REMOVED:
      if (e->code_type != v8::JitCodeEvent::BYTE_CODE)
        AddWords(HP_JIT_REMOVE, {reinterpret_cast<uintptr_t>(e->code_start), e->code_len});
      break;
    case v8::JitCodeEvent::CODE_START_LINE_INFO_RECORDING:
      // user_data is how V8 hands the recording back in the next two events. It must be set for
      // every recording: V8 leaves the field uninitialised.
      const_cast<v8::JitCodeEvent *>(e)->user_data = e->code_type == v8::JitCodeEvent::WASM_CODE ? nullptr : new Positions();
      break;
    case v8::JitCodeEvent::CODE_ADD_LINE_POS_INFO:
      if (e->user_data && e->line_info.position_type == v8::JitCodeEvent::POSITION)
        static_cast<Positions *>(e->user_data)->at.emplace_back(static_cast<uint32_t>(e->line_info.offset),
                                                                static_cast<uint32_t>(e->line_info.pos));
      break;
    case v8::JitCodeEvent::CODE_END_LINE_INFO_RECORDING:
      if (e->user_data) {
        DropPending();
        pending = static_cast<Positions *>(e->user_data);
        pending->start = reinterpret_cast<uintptr_t>(e->code_start);
      }
      break;
    default:
      break;  // events of later V8 versions
  }
}

// start([runtime path]): join the runtime (once per process) and log this isolate's code from now on
// (its existing code first). Returns "" or why nothing is logged.
thread_local bool started;  // this thread's isolate logs already (one isolate per thread in Node)

void Start(const v8::FunctionCallbackInfo<v8::Value> &info) {
  v8::Isolate *isolate = info.GetIsolate();
  if (started) {
    info.GetReturnValue().Set(v8::String::NewFromUtf8Literal(isolate, ""));
    return;
  }
  std::string runtime;
  if (info.Length() > 0 && info[0]->IsString()) runtime = *v8::String::Utf8Value(isolate, info[0]);
  const char *why = hp_jit_log_join_runtime(runtime.empty() ? nullptr : runtime.c_str());
  if (!why) {
    started = true;
    isolate->SetJitCodeEventHandler(v8::kJitCodeEventEnumExisting, OnCodeEvent);
  }
  info.GetReturnValue().Set(v8::String::NewFromUtf8(isolate, why ? why : "").ToLocalChecked());
}

// closeLogOnExec(dir): V8's log files under the raw directory `dir` are not inherited by the
// programs this process starts (log_fd.h). Returns how many descriptors were marked, -1 on failure.
void CloseLogOnExec(const v8::FunctionCallbackInfo<v8::Value> &info) {
  v8::Isolate *isolate = info.GetIsolate();
  int marked = -1;
  if (info.Length() > 0 && info[0]->IsString()) marked = hp_v8_log_cloexec(*v8::String::Utf8Value(isolate, info[0]));
  info.GetReturnValue().Set(marked);
}

}  // namespace

// Context-aware, so that worker threads (each its own isolate) can load it too.
NODE_MODULE_INIT(/* exports, module, context */) {
  v8::Isolate *isolate = context->GetIsolate();
  exports
      ->Set(context, v8::String::NewFromUtf8Literal(isolate, "start"),
            v8::FunctionTemplate::New(isolate, Start)->GetFunction(context).ToLocalChecked())
      .Check();
  exports
      ->Set(context, v8::String::NewFromUtf8Literal(isolate, "closeLogOnExec"),
            v8::FunctionTemplate::New(isolate, CloseLogOnExec)->GetFunction(context).ToLocalChecked())
      .Check();
}
