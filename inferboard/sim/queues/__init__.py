"""Single-queue mathematics the other packages build on: closed-form queueing results
(M/M/c, Erlang C, Kingman, GI/M/c), the finite waiting room, and latency distributions on a
shared grid (per-station sojourn times, composed along paths by convolution).
"""
