{
  "targets": [
    {
      "target_name": "quadscope_nvml",
      "sources": [
        "src/addon.cc",
        "src/device_reader.cc",
        "src/errors.cc",
        "src/library.cc",
        "src/session.cc",
        "src/xid_events.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='linux'", { "libraries": ["-ldl"] }],
        ["OS=='mac'", { "xcode_settings": { "GCC_ENABLE_CPP_EXCEPTIONS": "YES", "CLANG_CXX_LANGUAGE_STANDARD": "c++17" } }],
        ["OS=='win'", { "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] } } }]
      ]
    }
  ]
}
