// Package versioned gives admission webhooks and policies the object of a request in the
// version they asked for, as k8s.io/apiserver's admission.VersionedAttributes and
// ObjectInterfaces: the admission chain holds internal (hub) objects, a webhook receives
// (and patches) the object in the group version its rule matched, and a policy's CEL
// expressions see that version's JSON. Converter converts through the server's
// runtime.Scheme (typed kinds) or by setting apiVersion (custom resources, whose versions
// convert with strategy None), and back into the internal object in place after a mutating
// webhook's patch; Resources is the server's map of equivalent resources and their kinds,
// which matchPolicy Equivalent needs.
package versioned
