// Command fencing is the controller-runtime peer of test/runtime/fixtures/fenced-writer.ts, for the paused-leader
// experiment (bench/leader-fencing.js): one replica of a leader-elected manager that reconciles the ConfigMaps of a
// namespace, merge-patching its identity into each (annotation bench.kubescaffold.dev/writer) and requeueing after
// 300 ms. Both replicas use the same Lease and timings; the driver pauses the leader with SIGSTOP and counts the
// writes it makes after the Lease moved.
//
//	fencing -kubeconfig-file F -namespace NS -identity ID [-lease-duration 4s -renew-deadline 3s -retry-period 500ms]
//
// It exits when the manager stops: 1 when leadership was lost, as a scaffolded main.go does.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const writerAnnotation = "bench.kubescaffold.dev/writer"

type writer struct {
	client.Client
	identity string
	seq      atomic.Int64
}

func (w *writer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		writerAnnotation: w.identity, "bench.kubescaffold.dev/seq": strconv.FormatInt(w.seq.Add(1), 10),
	}}})
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name = req.Namespace, req.Name
	if err := w.Patch(ctx, cm, client.RawPatch(types.MergePatchType, body)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: 300 * time.Millisecond}, nil
}

func main() {
	kubeconfig := flag.String("kubeconfig-file", "", "kubeconfig of the cluster")
	namespace := flag.String("namespace", "", "namespace of the ConfigMaps and the Lease")
	identity := flag.String("identity", "", "this replica's identity in the Lease")
	leaseDuration := flag.Duration("lease-duration", 4*time.Second, "leader election lease duration")
	renewDeadline := flag.Duration("renew-deadline", 3*time.Second, "leader election renew deadline")
	retryPeriod := flag.Duration("retry-period", 500*time.Millisecond, "leader election retry period")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "fenced-writer",
		LeaderElectionNamespace: *namespace,
		LeaseDuration:           leaseDuration,
		RenewDeadline:           renewDeadline,
		RetryPeriod:             retryPeriod,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// controller-runtime's resource lock takes its identity from the hostname and a UUID; the driver tells the
	// replicas apart by the writer annotation and by the Lease's holder, which it maps to the process it started.
	fmt.Fprintf(os.Stdout, "{\"type\":\"started\",\"identity\":%q}\n", *identity)
	err = builder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.Funcs{
			// Only creates (and the initial list) start the loop; the replica's own patches must not re-trigger it.
			UpdateFunc: func(event.UpdateEvent) bool { return false },
		})).
		Complete(&writer{Client: mgr.GetClient(), identity: *identity})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
