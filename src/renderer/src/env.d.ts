interface Window {
  /** Present only in the Electron window (see `src/preload`); absent when the inspector runs in a browser. */
  readonly syncmesh?: import('../../shared/inspector/contract.ts').DesktopApi;
}

/** Vite turns an imported SVG into its URL (a `data:` URL when small). */
declare module '*.svg' {
  const url: string;
  export default url;
}
