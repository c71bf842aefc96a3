"""What a running harness hands its activities (`Harness`) and what its heartbeat saw."""
