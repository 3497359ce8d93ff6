"""The simulator's figures: headline tiles, plots, the simulated day, the canvas at the playhead, faults and the load test."""
