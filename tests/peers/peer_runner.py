"""Run one peer-tool measurement and print it as JSON (executed with the peers' interpreter).

Usage: ``python peer_runner.py SPECS.json`` (one spec or a list). A spec names the tool, its
call and CSV files; this script imports only the peer, pandas and numpy, so
it runs in the separate environment where anonymeter 1.1 and SDMetrics 0.32
are installed (anonymeter pins numpy < 1.27).
"""

import json
import sys
import time
import warnings

import numpy as np
import pandas as pd

warnings.simplefilter("ignore")


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""]) if path else None


def anonymeter(spec):
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

    ori, syn, control = read(spec["original"]), read(spec["synthetic"]), read(spec.get("control"))
    seed = spec.get("seed", 0)
    # Linkability and inference draw their targets with DataFrame.sample(), which uses numpy's global RNG.
    np.random.seed(seed)
    kind, p = spec["evaluator"], spec["params"]
    if kind == "singling_out":
        ev = SinglingOutEvaluator(
            ori, syn, n_attacks=p["n_attacks"], n_cols=p.get("n_cols", 3), control=control, seed=seed
        )
        ev.evaluate(mode=p["mode"])
    elif kind == "linkability":
        ev = LinkabilityEvaluator(
            ori,
            syn,
            aux_cols=tuple(p["aux_columns"]),
            n_attacks=p["n_attacks"],
            n_neighbors=p["n_neighbors"],
            control=control,
        )
        ev.evaluate(n_jobs=1)
    elif kind == "inference":
        ev = InferenceEvaluator(
            ori,
            syn,
            aux_cols=p["aux_columns"],
            secret=p["secret"],
            regression=p.get("regression", False),
            n_attacks=p["n_attacks"],
            control=control,
        )
        ev.evaluate(n_jobs=1)
    else:
        raise ValueError(kind)
    conf = spec.get("confidence", 0.95)
    res = ev.results(confidence_level=conf)
    risk = ev.risk(confidence_level=conf)
    return {
        "value": risk.value,
        "ci": list(risk.ci),
        "n_success": int(res.n_success),
        "n_baseline": int(res.n_baseline),
        "n_control": None if res.n_control is None else float(res.n_control),
        "main_rate": res.attack_rate.value,
        "control_rate": None if res.control_rate is None else res.control_rate.value,
        "baseline_rate": res.baseline_rate.value,
    }


def sdmetrics(spec):
    from sdmetrics.single_table import DCRBaselineProtection, DisclosureProtection

    real, syn = read(spec["original"]), read(spec["synthetic"])
    p = spec["params"]
    if spec["metric"] == "disclosure_protection":
        out = DisclosureProtection.compute_breakdown(
            real,
            syn,
            known_column_names=p["known"],
            sensitive_column_names=p["sensitive"],
            computation_method="cap",
            continuous_column_names=p.get("continuous"),
            num_discrete_bins=p.get("bins", 10),
        )
        return {k: (None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)) for k, v in out.items()}
    if spec["metric"] == "dcr_baseline_protection":
        metadata = {"columns": {c: {"sdtype": t} for c, t in p["sdtypes"].items()}}
        DCRBaselineProtection._seed = p["seed"]
        np.random.seed(p["seed"])  # the NaN mask of the random data uses numpy's global RNG
        random = DCRBaselineProtection._generate_random_data(real, len(syn))
        DCRBaselineProtection._seed = p["seed"]
        np.random.seed(p["seed"])
        out = DCRBaselineProtection.compute_breakdown(real, syn, metadata, None)
        if p.get("write_random"):
            random.to_csv(p["write_random"], index=False)
        return {
            "score": float(out["score"]),
            "median_synthetic": float(out["median_DCR_to_real_data"]["synthetic_data"]),
            "median_random": float(out["median_DCR_to_real_data"]["random_data_baseline"]),
        }
    raise ValueError(spec["metric"])


def domias(spec):
    """DOMIAS 0.0.5's own evaluation on a fixed synthetic set: its KDE density ratio's scores and AUC.

    ``evaluate_performance`` fits the generator it is given on the members and draws from it; a
    generator that returns the spec's synthetic set makes it score exactly that set. Its dataset is
    members, then as many non-members, then the reference records (its layout: the first
    ``mem_set_size`` rows, the next as many, the last ``reference_set_size``). It also trains its
    LOGAN baselines, one epoch here: only the "domias" scores are compared.
    """
    import torch
    from domias.evaluator import evaluate_performance
    from domias.models.generator import GeneratorInterface

    members, nonmembers, reference, synthetic = (
        read(spec[k]) for k in ("members", "nonmembers", "reference", "synthetic")
    )

    class Released(GeneratorInterface):
        def fit(self, data):
            return self

        def generate(self, count):
            return synthetic.iloc[:count].reset_index(drop=True)

    torch.manual_seed(0)
    dataset = np.vstack([members.to_numpy(float), nonmembers.to_numpy(float), reference.to_numpy(float)])
    out = evaluate_performance(
        Released(),
        dataset,
        mem_set_size=len(members),
        reference_set_size=len(reference),
        training_epochs=1,
        synthetic_sizes=[len(synthetic)],
        density_estimator="kde",
        seed=0,
        device="cpu",
    )[len(synthetic)]
    return {
        "auc": float(out["MIA_performance"]["domias"]["aucroc"]),
        "scores": [float(v) for v in out["MIA_scores"]["domias"]],
    }


def run(spec):
    start = time.perf_counter()
    result = {"anonymeter": anonymeter, "sdmetrics": sdmetrics, "domias": domias}[spec["tool"]](spec)
    result["seconds"] = time.perf_counter() - start
    return result


if __name__ == "__main__":
    specs = json.loads(open(sys.argv[1]).read())
    print(json.dumps([run(s) for s in specs] if isinstance(specs, list) else run(specs)))
