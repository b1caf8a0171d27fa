# The C-only install: libhyprof.so, the headers, the Fortran module, the MPI layer, pkg-config
# files and the per-rank launcher bin/hyprof-exec, without Node (docs/install.md).
#
#   make -j && make install PREFIX=$HOME/hyprof
#   cc app.c $(PKG_CONFIG_PATH=$HOME/hyprof/lib/pkgconfig pkg-config --cflags --libs hyprof) -o app
#
# The sources are the ones binding.gyp builds the runtime from (scripts/runtime-sources.sh, one list
# for both builds). The flags are those node-gyp compiles libhyprof.so with (binding.gyp's plus the
# ones Node's common.gypi adds for a Release build: -O3, frame pointers, -pthread, large files);
# a change to one belongs in the other.

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BUILD ?= build/make
SEA ?= build/sea/hyprof
# make's own default for FC is f77.
ifeq ($(origin FC),default)
  FC := gfortran
endif

VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' package.json)
SOURCES := $(shell sh scripts/runtime-sources.sh)
OBJECTS := $(SOURCES:%.c=$(BUILD)/obj/%.o)
HEADERS := native/include/hyprof.h native/include/hyprof.hpp native/include/TAU.h native/include/hyprof_tau_metadata.h
FORTRAN_MODULE_SOURCE := native/include/hyprof.f90

HYPROF_CFLAGS := -std=gnu11 -O3 -g -fno-omit-frame-pointer -fPIC -pthread -fvisibility=hidden \
  -Wall -Wextra -Wno-unused-parameter -D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE -Inative/include -Inative
HYPROF_LDFLAGS := -shared -pthread -Wl,-soname,libhyprof.so -Wl,-z,nodelete -Wl,-z,defs
HYPROF_LIBS := -lunwind -lunwind-x86_64 -ldl -lpthread -lrt
# PAPI counters when its header is there, as in binding.gyp (HYPROF_PAPI=0 leaves them out).
ifeq ($(shell test "$(HYPROF_PAPI)" != 0 && test -f /usr/include/papi.h && echo 1),1)
  HYPROF_CFLAGS += -DHYPROF_HAVE_PAPI=1
  HYPROF_LIBS += -lpapi
endif

.PHONY: all install uninstall clean fortran-module
all: $(BUILD)/libhyprof.so $(BUILD)/libhyprof_mpi.stamp $(BUILD)/hyprof_otf2.stamp $(BUILD)/libhyprof_cuda.stamp fortran-module

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HYPROF_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libhyprof.so: $(OBJECTS)
	$(CC) $(HYPROF_LDFLAGS) $(LDFLAGS) -o $@ $(OBJECTS) $(HYPROF_LIBS)

# The MPI layer: built with the MPI compiler when there is one, else skipped with a message.
$(BUILD)/libhyprof_mpi.stamp: $(BUILD)/libhyprof.so scripts/build-mpi.sh $(wildcard native/mpi/*.[ch])
	sh scripts/build-mpi.sh $(BUILD)

# The CUDA layer: built against CUPTI where CUDA is installed ($CUDA_HOME, default /usr/local/cuda),
# else skipped with a message (docs/gpu.md). `hyprof run` finds it beside libhyprof.so.
$(BUILD)/libhyprof_cuda.stamp: $(BUILD)/libhyprof.so scripts/build-cuda.sh $(wildcard native/cuda/*.[ch])
	sh scripts/build-cuda.sh $(BUILD)

# The trace converter hyprof-otf2: built with the OTF2 library when there is one, else skipped with a
# message (docs/trace.md).
$(BUILD)/hyprof_otf2.stamp: scripts/build-otf2.sh $(wildcard native/otf2/*.[ch])
	sh scripts/build-otf2.sh $(BUILD)

# The Fortran module (hyprof.mod) from native/include/hyprof.f90, when that file and a Fortran
# compiler are there; else a message and nothing.
fortran-module:
	@if [ ! -f $(FORTRAN_MODULE_SOURCE) ]; then \
	  echo "hyprof: no $(FORTRAN_MODULE_SOURCE) in this version: the Fortran module is not built"; \
	elif ! command -v $(FC) >/dev/null 2>&1; then \
	  echo "hyprof: no Fortran compiler ($(FC)): the Fortran module hyprof.mod is not built"; \
	else \
	  mkdir -p $(BUILD)/fortran && \
	  echo "$(FC) -fsyntax-only -J $(BUILD)/fortran $(FORTRAN_MODULE_SOURCE)" && \
	  $(FC) -fsyntax-only -J $(BUILD)/fortran $(FORTRAN_MODULE_SOURCE); \
	fi

$(BUILD)/hyprof.pc: package.json Makefile
	@mkdir -p $(BUILD)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: hyprof' 'Description: hybrid probe + sampling profiler in the style of TAU' 'Version: $(VERSION)' \
	  'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lhyprof' > $@

# --no-as-needed: the MPI libraries mpif90 adds after the layer stay linked (src/cli/cmd-config.ts).
$(BUILD)/hyprof-mpi.pc: package.json Makefile
	@mkdir -p $(BUILD)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: hyprof-mpi' 'Description: hyprof with its MPI layer (MPI calls become events)' 'Version: $(VERSION)' \
	  'Cflags: -I$${includedir}' 'Libs: -Wl,--no-as-needed -L$${libdir} -Wl,-rpath,$${libdir} -lhyprof_mpi -lhyprof' > $@

install: all $(BUILD)/hyprof.pc $(BUILD)/hyprof-mpi.pc
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(BUILD)/libhyprof.so $(DESTDIR)$(LIBDIR)/
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -d $(DESTDIR)$(INCLUDEDIR)/Profile
	install -m 644 native/include/Profile/Profiler.h $(DESTDIR)$(INCLUDEDIR)/Profile/
	install -m 644 $(BUILD)/hyprof.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	@if [ -f $(BUILD)/hyprof-otf2 ]; then \
	  echo "install hyprof-otf2"; install -m 755 $(BUILD)/hyprof-otf2 $(DESTDIR)$(LIBDIR)/; \
	fi
	@if [ -f $(BUILD)/libhyprof_mpi.so ]; then \
	  echo "install libhyprof_mpi.so hyprof-mpi.pc"; \
	  install -m 755 $(BUILD)/libhyprof_mpi.so $(DESTDIR)$(LIBDIR)/ && \
	  install -m 644 $(BUILD)/hyprof-mpi.pc $(DESTDIR)$(LIBDIR)/pkgconfig/; \
	fi
	@if [ -f $(BUILD)/libhyprof_cuda.so ]; then \
	  echo "install libhyprof_cuda.so"; install -m 755 $(BUILD)/libhyprof_cuda.so $(DESTDIR)$(LIBDIR)/; \
	fi
	@if [ -f $(BUILD)/fortran/hyprof.mod ]; then \
	  echo "install hyprof.mod"; install -m 644 $(BUILD)/fortran/hyprof.mod $(DESTDIR)$(INCLUDEDIR)/; \
	fi
	@if [ -x $(SEA) ]; then \
	  echo "install bin/hyprof (the single executable, scripts/build-sea.sh)"; \
	  install -d $(DESTDIR)$(PREFIX)/bin && install -m 755 $(SEA) $(DESTDIR)$(PREFIX)/bin/hyprof; \
	fi
	@# The per-rank launcher of MPI jobs (a POSIX shell script, as TAU's tau_exec: docs/mpi.md). It
	@# sources PREFIX/lib/hyprof-exec.env, which bin/hyprof writes: here when it is installed and the
	@# prefix is final (no DESTDIR), else at the launcher's first run.
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 bin/hyprof-exec $(DESTDIR)$(PREFIX)/bin/
	@if [ -x $(DESTDIR)$(PREFIX)/bin/hyprof ] && [ -z "$(DESTDIR)" ]; then \
	  echo "write $(LIBDIR)/hyprof-exec.env"; \
	  $(PREFIX)/bin/hyprof config --exec-env > $(LIBDIR)/hyprof-exec.env; \
	fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libhyprof.so $(DESTDIR)$(LIBDIR)/libhyprof_mpi.so $(DESTDIR)$(LIBDIR)/libhyprof_cuda.so \
	  $(DESTDIR)$(LIBDIR)/hyprof-otf2 \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/hyprof.pc $(DESTDIR)$(LIBDIR)/pkgconfig/hyprof-mpi.pc \
	  $(DESTDIR)$(INCLUDEDIR)/hyprof.h $(DESTDIR)$(INCLUDEDIR)/hyprof.hpp $(DESTDIR)$(INCLUDEDIR)/TAU.h \
	  $(DESTDIR)$(INCLUDEDIR)/hyprof_tau_metadata.h $(DESTDIR)$(INCLUDEDIR)/Profile/Profiler.h \
	  $(DESTDIR)$(INCLUDEDIR)/hyprof.mod $(DESTDIR)$(PREFIX)/bin/hyprof \
	  $(DESTDIR)$(PREFIX)/bin/hyprof-exec $(DESTDIR)$(LIBDIR)/hyprof-exec.env
	rm -rf $(DESTDIR)$(LIBDIR)/openmp-runtime

clean:
	rm -rf $(BUILD)

-include $(OBJECTS:.o=.d)
