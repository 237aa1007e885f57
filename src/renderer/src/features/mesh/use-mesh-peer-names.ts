/** The names of the last Mesh snapshot (read at start, kept by `mesh:changed`), for the shell's `PeerNamesContext` provider. */
import { useMemo } from 'react';
import { useInspector } from '../../store/index.ts';
import { peerNames, type PeerNames } from './peer-names.ts';

export function useMeshPeerNames(): PeerNames {
  const snapshot = useInspector((s) => s.mesh.value);
  return useMemo(() => peerNames(snapshot), [snapshot]);
}
