package server

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// bodyBudget bounds the bytes of the request bodies a Server holds at
// once (Options.MaxBodyInFlight): a request takes its share before it
// reads its body and gives it back when it is answered, and waits, first
// come first served, while the others hold the budget. Cost: a lock per
// acquire and release.
type bodyBudget struct {
	mu      sync.Mutex
	free    int64
	waiters []*bodyWaiter // in arrival order
}

type bodyWaiter struct {
	n     int64
	ready chan struct{} // closed when the bytes are granted
}

func newBodyBudget(n int64) *bodyBudget { return &bodyBudget{free: n} }

// acquire takes n bytes of the budget, waiting for them until ctx is done.
func (b *bodyBudget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.waiters) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &bodyWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.mu.Unlock()
			b.release(n)
		default:
			for i, o := range b.waiters {
				if o == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
			b.grantLocked() // the one behind it may fit now
			b.mu.Unlock()
		}
		return ctx.Err()
	}
}

// release gives n bytes back.
func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	b.grantLocked()
	b.mu.Unlock()
}

// grantLocked grants the waiters at the head of the queue that fit.
func (b *bodyBudget) grantLocked() {
	for len(b.waiters) > 0 && b.waiters[0].n <= b.free {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.free -= w.n
		close(w.ready)
	}
}

// limitListener accepts at most max connections open at once: Accept
// waits while that many are open, leaving the next ones in the kernel's
// queue, so that clients cannot take every file descriptor of the process
// (which the index and its log need). It records the most open at once.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	open      atomic.Int64
	peak      atomic.Int64
}

func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, sem: make(chan struct{}, max), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	for n, p := l.open.Add(1), l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() {
		l.open.Add(-1)
		<-l.sem
	})}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back when closed.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
