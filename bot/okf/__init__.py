"""OKF v0.2 metadata, pure: front matter read and edited surgically, sources/generated/verified projected
from the claims, index files rendered, and a bundle's conformance checked."""
