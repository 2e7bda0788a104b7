"""The README's first command runs this demo: it must run end to end and show money being saved."""

from csdt import demo


def test_demo_runs_and_cost_sensitive_models_save_money(capsys):
    rows, ev = demo.main()
    out = capsys.readouterr().out
    savings = {name: s for name, s, _, _ in rows}
    blind = savings["logistic regression, 0.5 threshold"]
    cost_sensitive = [s for name, s in savings.items() if "AEC" in name or "CSDT" in name or "ECSDT" in name]
    # the boosting estimators with no options book at least what xgboost logloss + BMR books here
    boosting = [s for name, s in savings.items() if "Classifier()" in name]
    assert len(boosting) == 2 and min(boosting) >= savings["xgboost logloss + Bayes minimum risk"] - 0.01
    assert len(cost_sensitive) == 5
    assert min(cost_sensitive) > blind + 0.3  # every cost-sensitive model saves far more money
    assert ev["fpr"] < 0.02 and ev["tpr"] > 0.3
    assert "identical: True" in out
