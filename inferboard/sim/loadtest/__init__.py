"""The request-level load test: time-varying arrivals, the seeded discrete-event simulation of a
compiled network, confidence intervals from one run, and the load test of a whole design.
"""
