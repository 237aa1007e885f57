/**
 * The device names peers announce (their presence documents), by peer key, for every place that
 * shows a peer key. The shell provides them from the last Mesh snapshot; without a provider
 * (component tests) no names are known and keys show alone.
 */
import { createContext, useContext } from 'react';

export type PeerNames = ReadonlyMap<string, string>;

export const PeerNamesContext = createContext<PeerNames>(new Map());

export function usePeerNames(): PeerNames {
  return useContext(PeerNamesContext);
}
