// Package flowcontrol is API Priority and Fairness, in place of the plain max-in-flight
// limit, as kube-apiserver's (KEP-1040, k8s.io/apiserver/pkg/util/flowcontrol): each request
// is classified by the FlowSchemas (flowcontrol.apiserver.k8s.io/v1; the matching one with the
// lowest matchingPrecedence, then name) into a priority level and a flow (the schema and its
// distinguisher, the user or the namespace); each Limited priority level has its share of the
// server's seats (nominalConcurrencyShares over the sum of every level's, of
// --max-requests-inflight plus --max-mutating-requests-inflight) and either rejects what
// exceeds them (Reject) or queues it (Queue): the flow is shuffle-sharded onto handSize of the
// level's queues (k8s.io/apiserver/pkg/util/shufflesharding, kube's dealer), the request joins
// the shortest of them unless it holds queueLengthLimit requests already, and seats are given
// to the queues by fair queuing, so that one flow's flood waits in its own queues while the
// other flows' requests are served. A request that waits past a quarter of its deadline (at
// most a minute), or finds its queue full, gets 429 with Retry-After, as kube's. Every
// classified response carries X-Kubernetes-PF-FlowSchema-UID and
// X-Kubernetes-PF-PriorityLevel-UID. The configuration is read from informer caches fed by a
// watch of the server's own storage (a kubectl edit applies to the next request after the
// watch delivers it), and the Ensurer keeps kube's mandatory and suggested objects
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap) as kube-apiserver's bootstrap
// configuration controller does.
//
// kube's library (k8s.io/apiserver/pkg/util/flowcontrol) cannot be used: it imports the
// server framework (endpoints, server, storage). This package is written to its algorithm,
// simplified where stated:
//   - a list takes a seat per 100 objects of its resource stored (1 to 10; the counts of
//     the storage-object-count-tracker, refreshed every minute), every other request one
//     seat (kube also adds seats for a write's watch notifications and a watch's start),
//     and a request costs its seats in virtual time (kube advances a queue's virtual time
//     by each request's actual execution time); the queues are served by start-time fair
//     queuing on those units;
//   - no borrowing between priority levels (lendablePercent and borrowingLimitPercent are
//     accepted and ignored; each level has its nominal seats);
//   - a watch is queued and dispatched as any request, and frees its seat as soon as it
//     starts (kube holds the seat until its initial events are sent);
//   - it runs after authentication and authorization (kube's runs before authorization), so
//     refused requests take no seat;
//   - a priority level whose queuing parameters change gets new queues; requests already
//     waiting finish in the old ones;
//   - a FlowSchema's Dangling condition is written (kube's reasons and messages), and a
//     dangling schema skipped, as kube's; PriorityLevelConfigurations get no conditions.
package flowcontrol
