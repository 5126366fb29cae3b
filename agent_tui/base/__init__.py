"""Plain values and text helpers every layer may use; they import no layer."""
