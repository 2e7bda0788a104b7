"""Rule books written the way an analyst would, one per benchmark data set (SQL WHERE conditions).

Each book mixes good rules, rules with column arithmetic (a ratio, a sum of weak signals, an amount
against the customer's mean), stale rules (on what no longer matters), a redundant rule (inside
another), one far too loose, and one that never fires.
"""

FRAUD = {  # make_fraud_transactions
    "night_velocity": "n_tx_24h >= 6 AND hour < 6",
    "big_vs_usual": "amount_vs_avg > 4 AND amount > 100",
    "over_customer_mean": "amount - amount / amount_vs_avg > 300",
    "far_new_merchant": "dist_home_km > 100 AND new_merchant = 1",
    "foreign_risky_merchant": "foreign = 1 AND merchant_risk > 0.7",
    "young_card_burst": "card_age_days < 60 AND n_tx_24h >= 4",
    "card_testing": "amount < 5 AND n_tx_24h >= 5",
    "velocity_times_risk": "n_tx_24h * merchant_risk > 3",
    "distance_per_card_day": "dist_home_km / (card_age_days + 1) > 1",
    "night_foreign": "(hour < 5 OR hour > 23) AND foreign = 1",
    "risky_merchant_big": "merchant_risk > 0.8 AND amount > 200",
    "new_merchant_far_night": "new_merchant = 1 AND dist_home_km > 50 AND hour < 7",
    "high_ratio": "amount_vs_avg >= 8",
    "many_tx_new_merchant": "n_tx_24h >= 5 AND new_merchant = 1",
    "foreign_far": "foreign = 1 AND dist_home_km > 500",
    "young_card_ratio": "NOT (card_age_days > 365) AND amount_vs_avg > 3",
    "top_risk_merchant": "COALESCE(merchant_risk, 0) > 0.9",
    "stale_noise": "noise_0 > 2.5",  # stale: once mattered
    "stale_lunch_big": "hour BETWEEN 12 AND 13 AND amount > 1000",
    "redundant_night_velocity": "n_tx_24h >= 7 AND hour < 5",  # inside night_velocity
    "too_loose": "amount > 50",
    "never_fires": "amount > 100000",
}

ADDITIVE = {  # make_additive_risk
    "linear_sum": "x00 + x01 + x02 > 2.5",
    "steps": "x03 > 1 AND x04 > 1",
    "hinges": "x06 + x07 + x08 > 3",
    "u_shape": "x09 * x09 + x10 * x10 + x11 * x11 > 12",
    "alerts_devices": "n_prev_alerts >= 2 AND n_devices >= 3",
    "countries": "n_countries >= 4",
    "flag_a_alerts": "flag_a = 1 AND n_prev_alerts >= 1 AND n_countries >= 2",
    "no_flag_b_devices": "flag_b = 0 AND n_devices >= 3 AND n_prev_alerts >= 1",
    "many_devices": "n_devices >= 5",
    "velocity": "n_tx_24h >= 9",
    "extreme_x09": "ABS(x09) > 3",
    "any_step_with_alert": "GREATEST(x03, x04, x05) > 2.5 AND n_prev_alerts >= 1",
    "risk_score": "0.35 * x00 + 0.6 * n_prev_alerts + 0.3 * n_countries > 2",
    "two_linear": "x00 > 1.5 AND x01 > 1",
    "small_amount_alerts": "amount < 5 AND n_prev_alerts >= 2",
    "x02_flag_a": "x02 BETWEEN 2 AND 10 AND flag_a = 1",
    "stale_noise": "noise_0 > 2 AND noise_1 > 2",
    "stale_amount": "amount > 1000",
    "redundant_countries": "n_countries >= 5",  # inside countries
    "too_loose": "x00 > 0",
    "never_fires": "n_devices > 50",
}

CARD = {  # the card file, raw columns (V1..V28 are the file's PCA components, Amount in EUR)
    "v14_amount": "Amount > 500 AND V14 < -5",
    "v14": "V14 < -8",
    "v17": "V17 < -6",
    "v12_v10": "V12 < -6 AND V10 < -4",
    "v14_plus_v12": "V14 + V12 < -14",
    "v4_v11": "V4 > 5 AND V11 > 3",
    "v3": "V3 < -7",
    "v10": "V10 < -8",
    "v16": "V16 < -6",
    "v7": "V7 < -8",
    "v2_amount": "V2 > 5 AND Amount > 100",
    "micro_test": "Amount < 2 AND V14 < -4",
    "abs_v4": "ABS(V4) > 8",
    "v9_v14": "V9 < -4 AND V14 < -3",
    "v1_plus_v3": "V1 + V3 < -15",
    "v11_minus_v14": "V11 - V14 > 12",
    "least_of_three": "LEAST(V12, V14, V17) < -10",
    "stale_v20": "V20 > 10",
    "stale_big_v28": "Amount BETWEEN 1000 AND 2000 AND V28 < -5",
    "redundant_v14": "V14 < -9",  # inside v14
    "too_loose": "Amount > 200",
    "never_fires": "Amount > 100000",
}

CARD_STREAM = {  # make_card_transactions (the Handbook's simulator; amounts in money units, windows in days)
    "big_amount": "amount > 220",
    "hot_terminal_week": "terminal_risk_7day > 0.3 AND terminal_nb_tx_7day >= 5",
    "hot_terminal_month": "terminal_risk_30day > 0.2 AND terminal_nb_tx_30day >= 10",
    "amount_over_month_mean": "amount > 3 * customer_avg_amount_30day AND customer_nb_tx_30day >= 10",
    "day_mean_jump": "customer_avg_amount_1day > 2.5 * customer_avg_amount_7day",
    "risky_terminal_big": "terminal_risk_30day + terminal_risk_7day > 0.2 AND amount > 100",
    "night_big": "during_night = 1 AND amount > 150",
    "burst": "customer_nb_tx_1day >= 6",
    "weekend_big": "during_weekend = 1 AND amount > 180",
    "stale_quiet_terminal": "terminal_nb_tx_30day < 3 AND amount > 80",  # stale: once mattered
    "redundant_big_amount": "amount > 250",  # inside big_amount
    "too_loose": "amount > 60",
    "never_fires": "amount > 100000",
}

BOOKS = {"fraud": FRAUD, "additive": ADDITIVE, "card_raw": CARD, "card_stream": CARD_STREAM}
