"""The semantic validators of a policy: each one function, each one kind of problem.

What the models of :mod:`policycheck.policy.model` cannot see alone: whether
the metric a rule names exists and its params validate, whether the attacker
model grants what the metric assumes, whether a threshold points the
metric's way and stays in its range, whether the columns named exist in the
release, whether each waiver names a live rule once.
:func:`policycheck.policy.semantics.check_semantics` runs them in order.
"""
