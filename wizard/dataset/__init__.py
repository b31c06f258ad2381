"""LeRobot datasets: layout models, inspection, quantile statistics, v2.1 -> v3.0 conversion, a writer."""
