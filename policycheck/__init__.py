"""policycheck: privacy policy-as-code for synthetic data releases.

The flow is one direction: policy YAML -> validated model (``policy``) ->
compiled plan (``compiler``) -> evaluators (``metrics``) -> verdicts
(``verdicts``) -> reports (``report``).
"""

__version__ = "0.1.0"
