// Node addon over the same C runtime: event registration and start / stop from JavaScript.
// Handles cross as small integers (indexes into a table kept here), so a probe pair is two calls
// with one number each. The richer TypeScript API (regions, async contexts) is built on this.
#include <napi.h>

#include <vector>

extern "C" {
#include "hyprof.h"
}

namespace {

std::vector<hyprof_event_t> events;

Napi::Value Event(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "hyprof: event name must be a string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string name = info[0].As<Napi::String>().Utf8Value();
  std::string group = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "TAU_USER";
  bool phase = info.Length() > 2 && info[2].ToBoolean().Value();
  hyprof_event_t e = phase ? hyprof_phase(name.c_str(), group.c_str()) : hyprof_event(name.c_str(), group.c_str());
  if (!e) {
    Napi::Error::New(env, "hyprof: measurement is disabled or out of memory").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  events.push_back(e);
  return Napi::Number::New(env, static_cast<double>(events.size() - 1));
}

hyprof_event_t HandleArg(const Napi::CallbackInfo &info) {
  if (info.Length() < 1 || !info[0].IsNumber()) return nullptr;
  uint32_t i = info[0].As<Napi::Number>().Uint32Value();
  return i < events.size() ? events[i] : nullptr;
}

Napi::Value Start(const Napi::CallbackInfo &info) {
  hyprof_event_t e = HandleArg(info);
  if (!e) Napi::TypeError::New(info.Env(), "hyprof: unknown event handle").ThrowAsJavaScriptException();
  else hyprof_start(e);
  return info.Env().Undefined();
}

Napi::Value Stop(const Napi::CallbackInfo &info) {
  hyprof_event_t e = HandleArg(info);
  if (!e) Napi::TypeError::New(info.Env(), "hyprof: unknown event handle").ThrowAsJavaScriptException();
  else hyprof_stop(e);
  return info.Env().Undefined();
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

Napi::Value Flush(const Napi::CallbackInfo &info) {
  hyprof_flush();
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("event", Napi::Function::New(env, Event));
  exports.Set("start", Napi::Function::New(env, Start));
  exports.Set("stop", Napi::Function::New(env, Stop));
  exports.Set("param", Napi::Function::New(env, Param));
  exports.Set("flush", Napi::Function::New(env, Flush));
  return exports;
}

}  // namespace

NODE_API_MODULE(hyprof_addon, Init)
