"""The canvas: a QGraphicsScene that mirrors a design's events, its items, the view and gestures."""
