// Command shardpeer is the controller-runtime peer of test/runtime/fixtures/sharded-replica.ts in its 'leader' mode,
// for bench/sharding.js and bench/first-pass.js: an active-passive (leader-elected) manager that reconciles the
// labelled objects of one kind in every namespace, owns Secrets, and merge-patches each object with what it saw
// (annotation $SHARD_DONE_KEY = its "want" + "/" + the owned Secret's data.v) and who it is. controller-runtime has no
// sharding; this is the scale-out it offers.
//
// The kind is ConfigMaps (want: data.want), or with -resource plural.group/version/Kind (e.g.
// ships.fleet.example.com/v1/Ship, a kind made by `scaffold create api`) that namespaced custom kind, run through
// unstructured.Unstructured with its GVK (want: spec.foo). The manager keeps controller-runtime's defaults but for
// one: its client reads unstructured objects from the cache (client.CacheOptions.Unstructured), as it reads typed
// ones, where by default each reconcile's Get would go to the API server.
//
// With -read-only it only reads (for the figures at 100,000 objects, where writing each would take an hour). It times
// itself as the TypeScript replica does, in JSON lines on stdout, `at` being milliseconds since the epoch:
// {"type":"started","identity"} before its manager starts; {"type":"progress","identity","reconciles","at"} at every
// $SHARD_PROGRESS_EVERY (default 1,000) reconciles done and 250 ms after a reconcile not yet reported (`at` then is
// that reconcile's end); {"type":"reconciled","identity","reconciles","at"} once, when $SHARD_EXPECT (if set)
// reconciles are done. On SIGUSR2 it prints {"type":"stats","identity","reconciles"}.
//
//	shardpeer -kubeconfig-file F -lease-namespace NS -identity ID [-lease-duration 4s] [-read-only]
//	          [-resource plural.group/version/Kind]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const testLabel = "shard.kubescaffold.dev/test"

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

// emit writes one JSON line on stdout.
func emit(msg map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = out.Encode(msg)
}

// counter counts reconciles done and prints the progress and reconciled lines.
type counter struct {
	identity string
	expect   int64
	every    int64

	mu         sync.Mutex
	reconciles int64
	lastAt     int64
	reported   int64
	trailing   *time.Timer
}

func (c *counter) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reconciles++
	c.lastAt = time.Now().UnixMilli()
	if c.reconciles == c.expect {
		emit(map[string]any{"type": "reconciled", "identity": c.identity, "reconciles": c.reconciles, "at": c.lastAt})
	}
	if c.reconciles%c.every == 0 {
		c.progressLocked()
	} else if c.trailing == nil {
		c.trailing = time.AfterFunc(250*time.Millisecond, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.progressLocked()
		})
	}
}

func (c *counter) progressLocked() {
	if c.trailing != nil {
		c.trailing.Stop()
		c.trailing = nil
	}
	if c.reported == c.reconciles {
		return
	}
	c.reported = c.reconciles
	emit(map[string]any{"type": "progress", "identity": c.identity, "reconciles": c.reconciles, "at": c.lastAt})
}

func (c *counter) count() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reconciles
}

type reconciler struct {
	client.Client
	identity string
	doneKey  string
	readOnly bool
	// gvk is the custom kind's, or empty for ConfigMaps.
	gvk     schema.GroupVersionKind
	counter *counter
	// traceWant: a reconcile that reads this "want" prints a traced line (bench/priority-edit.js's edit).
	traceWant string
}

// get reads the reconciled object and its "want".
func (r *reconciler) get(ctx context.Context, key types.NamespacedName) (client.Object, string, error) {
	if r.gvk.Empty() {
		cm := &corev1.ConfigMap{}
		if err := r.Get(ctx, key, cm); err != nil {
			return nil, "", err
		}
		return cm, cm.Data["want"], nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.gvk)
	if err := r.Get(ctx, key, u); err != nil {
		return nil, "", err
	}
	want, _, _ := unstructured.NestedString(u.Object, "spec", "foo")
	return u, want, nil
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer r.counter.done()
	obj, want, err := r.get(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.traceWant != "" && want == r.traceWant {
		emit(map[string]any{"type": "traced", "identity": r.identity, "name": req.Name, "reconciles": r.counter.count(), "at": time.Now().UnixMilli()})
	}
	v := "-"
	secret := &corev1.Secret{}
	if err := r.Get(ctx, req.NamespacedName, secret); err == nil && len(secret.Data["v"]) > 0 {
		v = string(secret.Data["v"])
	}
	done := want + "/" + v
	if r.readOnly || obj.GetAnnotations()[r.doneKey] == done {
		return ctrl.Result{}, nil
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		r.doneKey: done, "shard.kubescaffold.dev/by": r.identity,
	}}})
	if err := r.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

var resourcePattern = regexp.MustCompile(`^([a-z0-9-]+)\.([a-z0-9.-]+)/([a-z0-9]+)/([A-Za-z0-9]+)$`)

// parseResource reads plural.group/version/Kind into the kind's GVK.
func parseResource(s string) (schema.GroupVersionKind, error) {
	m := resourcePattern.FindStringSubmatch(s)
	if m == nil {
		return schema.GroupVersionKind{}, fmt.Errorf("-resource %q: want plural.group/version/Kind", s)
	}
	return schema.GroupVersionKind{Group: m[2], Version: m[3], Kind: m[4]}, nil
}

func envInt(name string, def int64) int64 {
	if n, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && n > 0 {
		return n
	}
	return def
}

func main() {
	kubeconfig := flag.String("kubeconfig-file", "", "kubeconfig of the cluster")
	leaseNamespace := flag.String("lease-namespace", "", "namespace of the Lease")
	identity := flag.String("identity", "", "this replica's identity")
	leaseDuration := flag.Duration("lease-duration", 4*time.Second, "leader election lease duration")
	readOnly := flag.Bool("read-only", false, "reconcile without writing")
	resource := flag.String("resource", "", "plural.group/version/Kind of a namespaced custom kind to reconcile instead of ConfigMaps")
	flag.Parse()
	doneKey := os.Getenv("SHARD_DONE_KEY")
	if doneKey == "" {
		doneKey = "shard.kubescaffold.dev/done"
	}
	var gvk schema.GroupVersionKind
	if *resource != "" {
		var err error
		if gvk, err = parseResource(*resource); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}

	ctrl.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// No client-side rate limit, as our client has none (the other Go peers do the same).
	cfg.QPS, cfg.Burst = -1, -1
	req, _ := labels.NewRequirement(testLabel, selection.Exists, nil)
	selector := labels.NewSelector().Add(*req)
	var reconciled client.Object = &corev1.ConfigMap{}
	if !gvk.Empty() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		reconciled = u
	}
	renew := *leaseDuration * 3 / 4
	retry := *leaseDuration / 8
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			reconciled:       {Label: selector},
			&corev1.Secret{}: {Label: selector},
		}},
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "crew",
		LeaderElectionNamespace: *leaseNamespace,
		LeaseDuration:           leaseDuration,
		RenewDeadline:           &renew,
		RetryPeriod:             &retry,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	emit(map[string]any{"type": "started", "identity": *identity})
	count := &counter{identity: *identity, expect: envInt("SHARD_EXPECT", -1), every: envInt("SHARD_PROGRESS_EVERY", 1000)}
	rec := &reconciler{Client: mgr.GetClient(), identity: *identity, doneKey: doneKey, readOnly: *readOnly, gvk: gvk, counter: count, traceWant: os.Getenv("SHARD_TRACE_WANT")}
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	go func() {
		for range usr2 {
			emit(map[string]any{"type": "stats", "identity": *identity, "reconciles": count.count()})
		}
	}()
	err = ctrl.NewControllerManagedBy(mgr).
		For(reconciled).
		Owns(&corev1.Secret{}).
		WithOptions(controllerOptions()).
		Complete(rec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// controllerOptions: 4 workers, as the TypeScript replica.
func controllerOptions() controller.Options {
	return controller.Options{MaxConcurrentReconciles: 4}
}
