/** Versions the desktop app reports about itself. */
interface SyncMeshVersions {
  readonly app: string;
  readonly electron: string;
  readonly chrome: string;
  readonly node: string;
}

/** What `src/preload/index.ts` exposes on `window.syncmesh` in the Electron window. */
interface SyncMeshDesktopApi {
  readonly versions: SyncMeshVersions;
}

interface Window {
  /** Present only in the Electron window; absent when the inspector runs in a browser. */
  readonly syncmesh?: SyncMeshDesktopApi;
}

/** Vite turns an imported SVG into its URL (a `data:` URL when small). */
declare module '*.svg' {
  const url: string;
  export default url;
}
