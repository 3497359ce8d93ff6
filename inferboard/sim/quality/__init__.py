"""Model quality over a timeline: model versions per serving path, accuracy per segment, drift
and its detectors, retraining through the canary, and the business metric that follows.
"""
