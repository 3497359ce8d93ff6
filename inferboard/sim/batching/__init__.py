"""Dynamic batching: the shared-queue batch-service model, its numerically solved tables
(cached on disk, keyed by the model's code), and the estimated table shown while the exact one
is built.
"""
