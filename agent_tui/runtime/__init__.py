"""The process's own surroundings: where files live, logs, timing marks, signals and child processes."""
