"""The front ends: each maps its input to the core's operations and renders its events."""
