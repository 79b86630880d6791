package usage

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorf(t *testing.T) {
	err := fmt.Errorf("reading: %w", Errorf("--limit must not be negative, not %d", -1))
	var ue *Error
	if !errors.As(err, &ue) || ue.Error() != "--limit must not be negative, not -1" {
		t.Errorf("errors.As(%v) = %v, %v", err, ue, errors.As(err, &ue))
	}
	if errors.As(errors.New("x"), &ue) {
		t.Error("a plain error is a usage error")
	}
}
