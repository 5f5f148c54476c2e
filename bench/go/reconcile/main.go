// Command reconcile is the controller-runtime peer of bench/runtime-reconcile-child.js: a manager with one controller
// for Things in one namespace whose reconciler reads the object from the cache and merge-patches its status, driven by
// bench/runtime-reconcile.js over a line protocol. Both peers implement the same protocol and reconciler:
//
//	reconcile -kubeconfig-file F -namespace NS -token T -expect N [-workers 1]
//	          [-metrics-bind-address :0 -health-probe-bind-address :0 -leader-elect -leader-election-id ID]
//
// The optional flags run the manager as a scaffolded project's config/default deploys it: metrics served over HTTPS
// with authentication and authorization (a self-signed certificate), health probes, and leader election.
//
// Reconciler: read the Thing from the cache; if its annotation bench.kubescaffold.dev/sent (microseconds since the
// epoch, stamped by the driver just before its update) is new, record now - sent as an event-to-reconcile latency;
// then, unless status already holds {token: T, observedGeneration, stamp}, merge-patch status to it.
//
// stdout (JSON lines): {"type":"first","sinceStartMs"} at the first reconcile; {"type":"throughput",...} once N distinct objects have had their status patched with T;
// replies to stdin commands: "latency" → {"type":"latency","samples":[ms...],"stamps":[...]} (and clears them),
// "status" → {"type":"status","reconciles","patches","errors","firstToLastReconcileMs","cpuMs"},
// "heap" → {"type":"heap","heapBytes","rssBytes"} after a GC; "stop" or EOF stops the manager and exits.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kubescaffold.dev/bench/go/thing"

	"kubescaffold.dev/bench/go/internal/proc"
)

const sentAnnotation = "bench.kubescaffold.dev/sent"

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

func emit(v any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = out.Encode(v)
}

type reconciler struct {
	client.Client
	token     string
	expect    int
	startedAt time.Time
	startUs   int64

	mu         sync.Mutex
	lastStamp  map[types.NamespacedName]string
	samples    []float64
	stamps     []string
	patched    map[types.NamespacedName]struct{} // nil once the throughput phase is over
	firstAt    time.Time
	lastAt     time.Time
	reconciles atomic.Int64
	patches    atomic.Int64
	errors     atomic.Int64
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.reconciles.Add(1) == 1 {
		emit(map[string]any{"type": "first", "sinceStartMs": float64(time.Since(r.startedAt).Microseconds()) / 1000})
	}
	r.mu.Lock()
	r.lastAt = time.Now()
	r.mu.Unlock()
	var t thing.Thing
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.lastStamp, req.NamespacedName)
			r.mu.Unlock()
			return ctrl.Result{}, nil
		}
		r.errors.Add(1)
		return ctrl.Result{}, err
	}
	seen := time.Now()
	stamp := t.Annotations[sentAnnotation]
	r.mu.Lock()
	if r.firstAt.IsZero() {
		r.firstAt = seen
	}
	if stamp != "" && r.lastStamp[req.NamespacedName] != stamp {
		r.lastStamp[req.NamespacedName] = stamp
		// Stamps from before this process started belong to an earlier run.
		if us, err := strconv.ParseInt(stamp, 10, 64); err == nil && us > r.startUs {
			r.samples = append(r.samples, float64(seen.UnixMicro()-us)/1000)
			r.stamps = append(r.stamps, stamp)
		}
	}
	r.mu.Unlock()
	if t.Status.Token == r.token && t.Status.ObservedGeneration == t.Generation && t.Status.Stamp == stamp {
		return ctrl.Result{}, nil
	}
	body, _ := json.Marshal(map[string]any{"status": map[string]any{
		"token": r.token, "observedGeneration": t.Generation, "stamp": stamp, "phase": "Ready",
	}})
	if err := r.Status().Patch(ctx, &t, client.RawPatch(types.MergePatchType, body)); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		r.errors.Add(1)
		return ctrl.Result{}, err
	}
	r.patches.Add(1)
	r.mu.Lock()
	if r.patched != nil {
		r.patched[req.NamespacedName] = struct{}{}
		if len(r.patched) == r.expect {
			now := time.Now()
			emit(map[string]any{
				"type": "throughput", "objects": r.expect,
				"firstToLastMs": float64(now.Sub(r.firstAt).Microseconds()) / 1000,
				"startToLastMs": float64(now.Sub(r.startedAt).Microseconds()) / 1000,
				"reconciles":    r.reconciles.Load(), "patches": r.patches.Load(), "errors": r.errors.Load(),
			})
			r.patched = nil
		}
	}
	r.mu.Unlock()
	return ctrl.Result{}, nil
}

// cpuMs is the user + system CPU time this process has used.
func cpuMs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// metricsOptions serves metrics as a kubebuilder project's main.go does with --metrics-secure (the default).
func metricsOptions(addr string, secure bool) metricsserver.Options {
	if addr == "0" || !secure {
		return metricsserver.Options{BindAddress: addr}
	}
	return metricsserver.Options{BindAddress: addr, SecureServing: true, FilterProvider: filters.WithAuthenticationAndAuthorization}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig-file", "", "kubeconfig file (controller-runtime registers -kubeconfig itself)")
	namespace := flag.String("namespace", "", "namespace of the Things")
	token := flag.String("token", "", "run token written to status")
	expect := flag.Int("expect", 0, "objects to patch before reporting throughput")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles")
	metricsAddr := flag.String("metrics-bind-address", "0", "metrics address")
	metricsSecure := flag.Bool("metrics-secure", true, "serve metrics over HTTPS with the authn/authz filter and a self-signed certificate")
	probeAddr := flag.String("health-probe-bind-address", "0", "health probe address")
	leaderElect := flag.Bool("leader-elect", false, "enable leader election")
	leaderElectionID := flag.String("leader-election-id", "bench-reconcile", "the Lease's name")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())

	startedAt := time.Now()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	// ctrl.GetConfig's default: no client-side throttling.
	cfg.QPS = -1
	cfg.Burst = -1
	scheme := kruntime.NewScheme()
	if err := thing.AddToScheme(scheme); err != nil {
		fail(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsOptions(*metricsAddr, *metricsSecure),
		HealthProbeBindAddress:  *probeAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        *leaderElectionID,
		LeaderElectionNamespace: *namespace,
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
	})
	if err != nil {
		fail(err)
	}
	if *probeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			fail(err)
		}
		if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
			fail(err)
		}
	}
	r := &reconciler{
		Client: mgr.GetClient(), token: *token, expect: *expect, startedAt: startedAt, startUs: startedAt.UnixMicro(),
		lastStamp: map[types.NamespacedName]string{}, patched: map[types.NamespacedName]struct{}{},
	}
	if *expect <= 0 {
		r.patched = nil
	}
	err = ctrl.NewControllerManagedBy(mgr).For(&thing.Thing{}).Named("thing").
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).Complete(r)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			switch strings.TrimSpace(sc.Text()) {
			case "latency":
				r.mu.Lock()
				s, st := r.samples, r.stamps
				r.samples, r.stamps = nil, nil
				r.mu.Unlock()
				if s == nil {
					s, st = []float64{}, []string{}
				}
				emit(map[string]any{"type": "latency", "samples": s, "stamps": st, "reconciles": r.reconciles.Load(), "errors": r.errors.Load()})
			case "status":
				r.mu.Lock()
				ms := 0.0
				if !r.firstAt.IsZero() {
					ms = float64(r.lastAt.Sub(r.firstAt).Microseconds()) / 1000
				}
				r.mu.Unlock()
				emit(map[string]any{"type": "status", "reconciles": r.reconciles.Load(), "patches": r.patches.Load(), "errors": r.errors.Load(), "firstToLastReconcileMs": ms, "cpuMs": cpuMs()})
			case "heap":
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				emit(map[string]any{"type": "heap", "heapBytes": m.HeapAlloc, "rssBytes": proc.RSSBytes(), "reconciles": r.reconciles.Load()})
			case "stop":
				cancel()
				return
			}
		}
		cancel()
	}()
	if err := mgr.Start(ctx); err != nil {
		fail(err)
	}
	emit(map[string]any{"type": "stopped", "reconciles": r.reconciles.Load(), "patches": r.patches.Load(), "errors": r.errors.Load()})
}
