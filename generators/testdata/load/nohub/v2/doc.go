// +groupName=nohub.example.com
package v2
