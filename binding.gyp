{
  # One set of C sources, built twice: libhyprof.so (the C ABI programs link with -lhyprof or get
  # through LD_PRELOAD) and the Node addon (node-addon-api) over the same runtime. The C sources are
  # every .c of native/ but the addon and the MPI layer: the core, each module's folder, and
  # native/modules.c, the list of those modules (native/README.md). scripts/runtime-sources.sh lists
  # them, for this file and for the Makefile (the C-only install, which repeats the flags below).
  # The Fortran module file hyprof.mod (native/include/hyprof.f90: interfaces only, its functions are
  # in libhyprof.so) is built by scripts/build-fortran.sh where a Fortran compiler is found.
  # The MPI layer (native/mpi) is a library of its own, libhyprof_mpi.so, compiled with the MPI
  # implementation's compiler by scripts/build-mpi.sh when one is installed (docs/mpi.md).
  "variables": {
    "hyprof_c_sources": [
      "<!@(sh scripts/runtime-sources.sh)"
    ],
    # PAPI counters when its header is there; HYPROF_PAPI=0 leaves them out (the prebuilt binaries,
    # scripts/prebuild.sh, must not need libpapi on the user's machine).
    "hyprof_has_papi": "<!(test \"$HYPROF_PAPI\" != 0 && test -f /usr/include/papi.h && echo 1 || echo 0)",
    "hyprof_build_v8": "<!(test \"$HYPROF_V8\" != 0 && echo 1 || echo 0)"
  },
  "target_defaults": {
    "cflags_c": ["-std=gnu11"],
    "cflags": ["-O2", "-g", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    "cflags_cc": ["-std=c++17", "-O2", "-g", "-fvisibility=hidden"],
    "include_dirs": ["native/include", "native"],
    "libraries": ["-lunwind", "-lunwind-x86_64", "-ldl", "-lpthread", "-lrt"],
    "conditions": [
      ["hyprof_has_papi==1", {"defines": ["HYPROF_HAVE_PAPI=1"], "libraries": ["-lpapi"]}]
    ]
  },
  "targets": [
    {
      "target_name": "hyprof",
      "type": "shared_library",
      "product_name": "hyprof",
      "product_prefix": "lib",
      "sources": ["<@(hyprof_c_sources)"],
      "ldflags": ["-Wl,-soname,libhyprof.so", "-Wl,-z,nodelete", "-Wl,-z,defs"]
    },
    {
      "target_name": "hyprof_mpi",
      "type": "none",
      "dependencies": ["hyprof"],
      "actions": [
        {
          "action_name": "build_mpi_layer",
          "inputs": ["scripts/build-mpi.sh", "<!@(find native/mpi native/core -name '*.[ch]' | sort)"],
          "outputs": ["<(PRODUCT_DIR)/libhyprof_mpi.stamp"],
          "action": ["sh", "scripts/build-mpi.sh", "<(PRODUCT_DIR)"]
        }
      ]
    },
    {
      # libhyprof_cuda.so (native/cuda/): CUPTI's GPU records, built only where CUDA is (docs/gpu.md).
      "target_name": "hyprof_cuda",
      "type": "none",
      "dependencies": ["hyprof"],
      "actions": [
        {
          "action_name": "build_cuda_layer",
          "inputs": ["scripts/build-cuda.sh", "<!@(find native/cuda native/core -name '*.[ch]' | sort)"],
          "outputs": ["<(PRODUCT_DIR)/libhyprof_cuda.stamp"],
          "action": ["sh", "scripts/build-cuda.sh", "<(PRODUCT_DIR)"]
        }
      ]
    },
    {
      # hyprof-otf2 (native/otf2/): the trace converter `hyprof resolve` runs, linked with the OTF2
      # library; built only where the library is (scripts/build-otf2.sh), like the MPI layer.
      "target_name": "hyprof_otf2",
      "type": "none",
      "actions": [
        {
          "action_name": "build_otf2_writer",
          "inputs": ["scripts/build-otf2.sh", "<!@(find native/otf2 -name '*.[ch]' | sort)"],
          "outputs": ["<(PRODUCT_DIR)/hyprof_otf2.stamp"],
          "action": ["sh", "scripts/build-otf2.sh", "<(PRODUCT_DIR)"]
        }
      ]
    },
    {
      "target_name": "hyprof_fortran_module",
      "type": "none",
      "actions": [
        {
          "action_name": "build_fortran_module",
          "inputs": ["scripts/build-fortran.sh", "native/include/hyprof.f90"],
          "outputs": ["<(PRODUCT_DIR)/hyprof_mod.stamp"],
          "action": ["sh", "scripts/build-fortran.sh", "<(PRODUCT_DIR)"]
        }
      ]
    },
    {
      # hyprof-otf2-read, the OTF2 archive reader of the trace features (src/trace/): a program of its
      # own linked with libotf2, built by scripts/build-otf2-read.sh where that library is installed.
      "target_name": "hyprof_otf2_read",
      "type": "none",
      "actions": [
        {
          "action_name": "build_otf2_read",
          "inputs": ["scripts/build-otf2-read.sh", "native/otf2-read/otf2_read.c"],
          "outputs": ["<(PRODUCT_DIR)/hyprof-otf2-read.stamp"],
          "action": ["sh", "scripts/build-otf2-read.sh", "<(PRODUCT_DIR)"]
        }
      ]
    },
    {
      "target_name": "hyprof_addon",
      "sources": ["<@(hyprof_c_sources)", "<!@(find native/addon -maxdepth 1 -name '*.cc' | sort)"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "HYPROF_ADDON=1"]
    }
  ],
  "conditions": [
    # V8's JIT code events (native/addon/v8, docs/node.md): V8's C++ interface, so built for the Node
    # ABI of the node that builds it, and never prebuilt: scripts/prebuild.sh sets HYPROF_V8=0 (also
    # because prebuildify ships the first .node it finds). It links with no part of the runtime: it
    # finds the runtime's exported functions at run time.
    ["hyprof_build_v8==1", {
      "targets": [
        {
          "target_name": "hyprof_v8",
          "sources": ["<!@(find native/addon/v8 -name '*.c' -o -name '*.cc' | sort)"],
          "cflags_cc": ["-Wno-cast-function-type"],
          "libraries!": ["-lunwind", "-lunwind-x86_64", "-lpapi"]
        }
      ]
    }]
  ]
}
