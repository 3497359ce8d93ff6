"""The design over time, tick by tick: offered traffic, faults and actions, routing per tick,
the tick model of each station (fluid backlog, Erlang tables, metric and regime tables),
autoscaling, end-to-end percentiles, and the events an on-call engineer sees.
"""
