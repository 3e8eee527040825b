// +groupName=order.example.com
package v1alpha1
