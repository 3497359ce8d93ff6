"""The simulator: a design compiled into a queueing network, solved analytically (steady state),
over time (timeline with autoscaling and faults), and request by request (load test)."""
