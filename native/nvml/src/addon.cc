// The JS surface: open(path) → session info or {ok:false, reason}; sample() → every field of every
// device plus pending Xid events, in one call; close(). The TypeScript wrapper (../index.ts) is the
// only caller.
#include <napi.h>

#include <chrono>

#include "device_reader.h"
#include "errors.h"
#include "session.h"
#include "xid_events.h"

namespace {

using nvml::TheSession;

template <typename T>
Napi::Value OrNull(Napi::Env env, const std::optional<T>& v) {
  return v ? Napi::Value(Napi::Number::New(env, static_cast<double>(*v))) : env.Null();
}

Napi::Object DeviceIdentity(Napi::Env env, const nvml::DeviceEntry& d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("index", d.index);
  o.Set("name", d.name);
  o.Set("uuid", d.uuid);
  o.Set("pci_bus_id", d.pciBusId);
  return o;
}

Napi::Value Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "open(path): path must be a string");
  nvml::Session& s = TheSession();
  std::string reason;
  Napi::Object out = Napi::Object::New(env);
  if (!s.Open(info[0].As<Napi::String>().Utf8Value(), reason)) {
    out.Set("ok", false);
    out.Set("reason", reason);
    return out;
  }
  const nvml::Api& a = s.api();
  out.Set("ok", true);
  out.Set("library", s.path());
  out.Set("driver_version", s.driverVersion());
  out.Set("nvml_version", s.nvmlVersion());
  Napi::Array devices = Napi::Array::New(env, s.devices().size());
  for (size_t i = 0; i < s.devices().size(); ++i) devices.Set(i, DeviceIdentity(env, s.devices()[i]));
  out.Set("devices", devices);
  Napi::Object symbols = Napi::Object::New(env);
  symbols.Set("memory", a.memorySymbol);
  symbols.Set("processes", a.processesSymbol);
  symbols.Set("clocks_event_reasons", a.clocksEventSymbol);
  symbols.Set("event_wait", a.eventWaitSymbol);
  out.Set("symbols", symbols);
  Napi::Array missing = Napi::Array::New(env, a.missing.size());
  for (size_t i = 0; i < a.missing.size(); ++i) missing.Set(i, a.missing[i]);
  out.Set("missing_symbols", missing);
  out.Set("xid_note", s.xidNote().empty() ? env.Null() : Napi::String::New(env, s.xidNote()));
  return out;
}

Napi::Object DeviceValue(Napi::Env env, const nvml::DeviceEntry& d, const nvml::DeviceSample& s) {
  Napi::Object o = DeviceIdentity(env, d);
  o.Set("lost", s.lost);
  o.Set("mem_used", OrNull(env, s.memUsed));
  o.Set("mem_total", OrNull(env, s.memTotal));
  o.Set("mem_free", OrNull(env, s.memFree));
  o.Set("mem_reserved", OrNull(env, s.memReserved));
  o.Set("util_gpu", OrNull(env, s.utilGpu));
  o.Set("util_mem", OrNull(env, s.utilMem));
  o.Set("sm_clock_mhz", OrNull(env, s.smClockMhz));
  o.Set("mem_clock_mhz", OrNull(env, s.memClockMhz));
  o.Set("power_w", s.powerMw ? Napi::Value(Napi::Number::New(env, *s.powerMw / 1000.0)) : env.Null());
  o.Set("temp_c", OrNull(env, s.tempC));
  o.Set("clocks_event_reasons", OrNull(env, s.clocksEventReasons));
  o.Set("ecc_dbe_volatile", OrNull(env, s.eccDbeVolatile));
  o.Set("ecc_dbe_aggregate", OrNull(env, s.eccDbeAggregate));
  if (s.processes) {
    Napi::Array procs = Napi::Array::New(env, s.processes->size());
    for (size_t i = 0; i < s.processes->size(); ++i) {
      Napi::Object p = Napi::Object::New(env);
      p.Set("pid", (*s.processes)[i].pid);
      p.Set("used_bytes", OrNull(env, (*s.processes)[i].usedBytes));
      procs.Set(i, p);
    }
    o.Set("processes", procs);
  } else {
    o.Set("processes", env.Null());
  }
  Napi::Object errors = Napi::Object::New(env);
  for (const auto& e : s.errors) errors.Set(e.first, e.second);
  o.Set("errors", errors);
  return o;
}

Napi::Value Sample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  nvml::Session& s = TheSession();
  if (!s.open()) throw Napi::Error::New(env, "NVML is not open (call open() first, or it was closed)");
  const auto t0 = std::chrono::steady_clock::now();
  const nvml::Api& a = s.api();
  std::vector<nvml::DeviceEntry>& devs = s.devices();
  Napi::Array devices = Napi::Array::New(env, devs.size());
  for (size_t i = 0; i < devs.size(); ++i) {
    nvml::DeviceSample ds;
    nvml::ReadDevice(a, devs[i], ds);
    devices.Set(i, DeviceValue(env, devs[i], ds));
  }
  std::vector<nvml::XidEvent> xids;
  const std::string xidError = nvml::PollXids(s, xids);
  Napi::Array xidArr = Napi::Array::New(env, xids.size());
  for (size_t i = 0; i < xids.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("gpu", xids[i].device);
    x.Set("xid", static_cast<double>(xids[i].xid));
    xidArr.Set(i, x);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("devices", devices);
  out.Set("xids", xidArr);
  out.Set("xid_error", xidError.empty() ? env.Null() : Napi::String::New(env, xidError));
  out.Set("cost_us", std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  return out;
}

Napi::Value Close(const Napi::CallbackInfo& info) {
  TheSession().Close();
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("open", Napi::Function::New(env, Open, "open"));
  exports.Set("sample", Napi::Function::New(env, Sample, "sample"));
  exports.Set("close", Napi::Function::New(env, Close, "close"));
  return exports;
}

}  // namespace

NODE_API_MODULE(quadscope_nvml, Init)
