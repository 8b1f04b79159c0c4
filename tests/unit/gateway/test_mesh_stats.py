"""Reading the services' /metrics for the projections page."""

from __future__ import annotations

from gateway.adapters.mesh_stats import parse_metrics

METRICS = """# HELP bkn_projection_lag_records Records behind.
# TYPE bkn_projection_lag_records gauge
bkn_projection_lag_records{projection="trace-recorder"} 7.0
# TYPE bkn_projection_applied counter
bkn_projection_applied_total{projection="trace-recorder"} 12.0
# TYPE bkn_dead_lettered counter
bkn_dead_lettered_total{consumer="trace-recorder"} 1.0
# TYPE bkn_http_requests counter
bkn_http_requests_total{route="/x",method="GET",status="200"} 3.0
"""


def test_projection_samples_by_name_and_label() -> None:
    found = parse_metrics(METRICS)
    assert found == {"bkn_projection_lag_records": {"trace-recorder": 7.0},
                     "bkn_projection_applied_total": {"trace-recorder": 12.0},
                     "bkn_dead_lettered_total": {"trace-recorder": 1.0}}
