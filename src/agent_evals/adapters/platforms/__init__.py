"""Result platforms: where a finished run is recorded (``LocalConfig`` writes JSON files)."""
