package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumInstall says how to install the browser the pages are checked in.
const chromiumInstall = "apt-get install -y chromium; .ci/run installs it when it can"

// chromiumPath returns the Chromium (or Chrome) to drive: $SIMIDX_CHROMIUM,
// else chromium (Debian's package), chromium-browser, google-chrome or
// google-chrome-stable on the PATH; "" when there is none.
func chromiumPath() string {
	if p := os.Getenv("SIMIDX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium driven over the DevTools protocol by
// chromedp, with a profile of its own in a new directory.
type browser struct {
	ctx     context.Context // of the browser: its first tab
	cancel  func()
	dir     string
	Version string // product and version, "Chromium/..." or "HeadlessChrome/..."
}

// newBrowser starts a headless Chromium with a window of width × height
// CSS pixels. It runs as root (no sandbox) and makes no connection of its
// own: no background networking, component updates, sync or QUIC.
func newBrowser(width, height int) (*browser, error) {
	path := chromiumPath()
	if path == "" {
		return nil, fmt.Errorf("no Chromium found (%s)", chromiumInstall)
	}
	dir, err := os.MkdirTemp("", "simidx-chromium-")
	if err != nil {
		return nil, err
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, dir: dir, cancel: func() { cancel(); acancel(); os.RemoveAll(dir) }}
	v, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		b.cancel()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	b.Version = v.Product
	return b, nil
}

// close stops the browser and removes its profile.
func (b *browser) close() { b.cancel() }

// tab is a tab of the browser, with what its pages reported: errors
// written to the console (by the page, or by the browser: a refused
// resource, a violation of the Content-Security-Policy), exceptions no
// script caught, and the dialogs (alert, confirm) opened, which it
// answers with accept.
type tab struct {
	ctx    context.Context
	cancel func()
	accept bool

	mu       sync.Mutex
	errors   []string
	warnings []string
	dialogs  []string
}

// newTab opens a tab.
func (b *browser) newTab() (*tab, error) {
	ctx, cancel := chromedp.NewContext(b.ctx)
	t := &tab{ctx: ctx, cancel: cancel}
	// Listen calls its func before the reply of the command that follows
	// the event: once an action returns, every message it caused is in.
	err := chromedp.Listen(ctx, func(ev any) {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			msg := string(e.Type) + ": " + strings.Join(args, " ")
			switch e.Type {
			case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
				t.errors = append(t.errors, msg)
			case runtime.ConsoleAPICalledTypeWarning:
				t.warnings = append(t.warnings, msg)
			}
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			t.errors = append(t.errors, "exception: "+msg)
		case *log.EventEntryAdded:
			msg := fmt.Sprintf("%s %s: %s %s", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL)
			switch e.Entry.Level {
			case log.EntryLevelError:
				t.errors = append(t.errors, msg)
			case log.EntryLevelWarning:
				t.warnings = append(t.warnings, msg)
			}
		case *page.EventJavascriptDialogOpening:
			t.dialogs = append(t.dialogs, string(e.Type)+": "+e.Message)
			// Not from the reading loop: its reply is read there.
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: t.accept})
		}
	})
	if err != nil {
		cancel()
		return nil, err
	}
	return t, nil
}

// do runs the actions in the tab, in order.
func (t *tab) do(steps ...chromedp.Action[chromedp.Void]) error { return chromedp.Do(t.ctx, steps...) }

// evalIn evaluates the JavaScript expression in the tab, its value decoded
// into a T.
func evalIn[T any](t *tab, expr string) (T, error) {
	return chromedp.Run(t.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// problems returns the errors and dialogs reported so far.
func (t *tab) problems() (errors, dialogs []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.errors...), append([]string(nil), t.dialogs...)
}

// close closes the tab.
func (t *tab) close() { t.cancel() }
