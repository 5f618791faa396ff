# Two set-up commands for a fresh machine: `make demo` and `make test`.
# Everything they need (real robots from PyPI, Rust dependencies) is installed here.

ROBOT_PINS := example-robot-data==6.0.0 openarm-mujoco==2.3.0 robosuite==1.5.2
ROBOT_STAMP := .robots/installed
CARGO ?= cargo
COLLIDE := target/release/collide

.PHONY: robots build demo test bench fmt lint clean-robots

# Pinned robot descriptions, installed without their Python dependencies (we only read files).
robots:
	@if [ "$$(cat $(ROBOT_STAMP) 2>/dev/null)" != "$(ROBOT_PINS)" ]; then \
		echo "installing robots: $(ROBOT_PINS)"; \
		rm -rf .robots && mkdir -p .robots && \
		python3 -m pip install --quiet --disable-pip-version-check --no-deps --target .robots/site $(ROBOT_PINS) && \
		echo "$(ROBOT_PINS)" > $(ROBOT_STAMP); \
	fi

build:
	$(CARGO) build --release --locked

demo: robots build
	$(COLLIDE) inspect robots/franka_panda/robot.yaml

test: robots
	$(CARGO) test --release --locked

bench: robots
	$(CARGO) bench --locked

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets --locked -- -D warnings

clean-robots:
	rm -rf .robots
