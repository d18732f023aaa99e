package awsclient

import (
	"context"
	"sync"
	"time"
)

// SSMBatchWindow is how long the first name of a GetParameters batch waits
// for others to join it. Terraform plans up to -parallelism resources at
// once, and each EC2NodeClass asks for its own parameters: within a few
// milliseconds of each other, so they share calls of up to SSMBatchSize
// names instead of making one each.
var SSMBatchWindow = 5 * time.Millisecond

// paramBatch is one GetParameters call being gathered or in flight.
type paramBatch struct {
	names []string
	done  chan struct{} // closed when the call has returned and err is set
	err   error

	// ctx is cancelled when every caller waiting for the batch has given
	// up, so a cancelled plan stops the call but one caller cannot stop it
	// for the others.
	ctx     context.Context
	cancel  context.CancelFunc
	waiters int
}

// paramBatcher gathers the names concurrent callers ask for into batches.
type paramBatcher struct {
	mu       sync.Mutex
	open     *paramBatch            // gathering names, not sent yet
	inFlight map[string]*paramBatch // name -> the batch that asks for it
}

// join puts the names into batches (the open one, or one already asking for
// a name) and returns the batches to wait for.
func (c *Cache) join(ctx context.Context, names []string) []*paramBatch {
	b := &c.batcher
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inFlight == nil {
		b.inFlight = map[string]*paramBatch{}
	}
	seen := map[*paramBatch]bool{}
	var out []*paramBatch
	wait := func(pb *paramBatch) {
		if !seen[pb] {
			seen[pb] = true
			pb.waiters++
			out = append(out, pb)
		}
	}
	if b.open != nil && b.open.ctx.Err() != nil {
		b.open = nil // everyone waiting for it gave up; it fails when sent
	}
	for _, n := range names {
		// A batch whose callers all gave up is cancelled: ask anew.
		if pb, ok := b.inFlight[n]; ok && pb.ctx.Err() == nil {
			wait(pb)
			continue
		}
		if b.open == nil {
			pb := &paramBatch{done: make(chan struct{})}
			pb.ctx, pb.cancel = context.WithCancel(context.WithoutCancel(ctx))
			b.open = pb
			time.AfterFunc(SSMBatchWindow, func() { c.send(pb) })
		}
		pb := b.open
		pb.names = append(pb.names, n)
		b.inFlight[n] = pb
		wait(pb)
		if len(pb.names) == SSMBatchSize {
			go c.send(pb)
			b.open = nil
		}
	}
	return out
}

// send makes the batch's call once, whether the window or a full batch
// triggers it first.
func (c *Cache) send(pb *paramBatch) {
	b := &c.batcher
	b.mu.Lock()
	if b.open == pb {
		b.open = nil
	}
	if pb.names == nil { // already sent
		b.mu.Unlock()
		return
	}
	names := pb.names
	pb.names = nil
	b.mu.Unlock()

	pb.err = c.getParameterBatch(pb.ctx, names)
	pb.cancel()

	b.mu.Lock()
	for _, n := range names {
		if b.inFlight[n] == pb {
			delete(b.inFlight, n)
		}
	}
	b.mu.Unlock()
	close(pb.done)
}

// await waits for the batch or for the caller to give up; the last caller
// to give up cancels the call.
func (c *Cache) await(ctx context.Context, pb *paramBatch) error {
	select {
	case <-pb.done:
		return pb.err
	case <-ctx.Done():
		c.batcher.mu.Lock()
		pb.waiters--
		if pb.waiters == 0 {
			pb.cancel()
		}
		c.batcher.mu.Unlock()
		return ctx.Err()
	}
}
