# The README's two commands: `make run` and `make test`. Both install what they need first.
BUILD ?= build
JOBS ?= $(shell nproc)
BUILD_TYPE ?= Release

.PHONY: all deps configure build run test package clean

all: build

deps:
	@packaging/install-deps.sh

configure: deps
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The app with the bundled demo preset; without a display, the demo's plan in the terminal.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  $(BUILD)/bin/traindeck --config demo-cpu; \
	else \
	  echo "No display: showing the demo job in the terminal (traindeck-train)."; \
	  $(BUILD)/bin/traindeck-train plan --config demo-cpu && \
	  $(BUILD)/bin/traindeck-train validate --config demo-cpu || true; \
	fi

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

package: build
	@cd $(BUILD) && cpack

clean:
	rm -rf $(BUILD)
