package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
)

// TestOpenSettingsRace checks the error of a command that found no index
// and was beaten by another process creating it with other settings: a
// conflict with the stored settings, not a mistake in the command line.
func TestOpenSettingsRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.simidx")
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{MaxDistance: 3}})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	_, err = index.Open(path, &index.Options{Settings: &index.Settings{MaxDistance: 5}})
	var u *usage.Error
	got := openError(path, err, true) // the file was not there when the command looked
	if errors.As(got, &u) || !strings.Contains(got.Error(), "conflict with the settings") {
		t.Fatalf("a lost creation race: %v; want the conflict, not a usage error", got)
	}
	bad := openError(path, fmt.Errorf("%w: max distance 99", index.ErrSettings), false)
	if !errors.As(bad, &u) {
		t.Fatalf("invalid settings: %v; want a usage error", bad)
	}
}
