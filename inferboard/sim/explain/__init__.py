"""How figures are explained: the explanation each solver number carries, the same figures in
plain words, and how far to trust each headline number.
"""
