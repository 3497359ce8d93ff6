"""The steady state: one station's queueing model, the solver's plan over the network, the
analytic solver and its results, and the evaluation of a whole design.
"""
