// The one security module for every webContents of the desktop app (architecture.md,
// Security; conventions.md): no new windows, no navigation away from the studio, external
// links only through an allowlist, and a permission handler that grants almost nothing.
import { app, shell, type Event as ElectronEvent, type Session, type WebContents, type WebPreferences } from 'electron';
import { ALLOWED_PERMISSIONS, isAllowedExternal, isSameOrigin } from './policy.ts';

/** The webPreferences every studio window uses. Never webSecurity: false. */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: true,
  };
}

let appOrigin = '';

/** The origin the windows may show: the studio (or, in development, the Vite dev server). */
export function setAppOrigin(origin: string): void {
  appOrigin = new URL(origin).origin;
}

export function getAppOrigin(): string {
  return appOrigin;
}

export function isAppUrl(raw: string): boolean {
  return isSameOrigin(raw, appOrigin);
}

function openExternally(url: string): void {
  if (isAllowedExternal(url)) void shell.openExternal(url);
}

/** Applied to every webContents as it is created (see installSecurity). */
export function hardenWebContents(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url); // links with target=_blank go to the browser, if allowed
    return { action: 'deny' };
  });
  const blockNavigation = (event: ElectronEvent, url: string) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    openExternally(url);
  };
  contents.on('will-navigate', blockNavigation);
  contents.on('will-redirect', blockNavigation);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

function installPermissionPolicy(ses: Session): void {
  ses.setPermissionRequestHandler((contents, permission, callback) => {
    callback(ALLOWED_PERMISSIONS.has(permission) && isAppUrl(contents.getURL()));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingOrigin));
  // No device access of any kind.
  ses.setDevicePermissionHandler(() => false);
}

/** Call once, before the first window. */
export function installSecurity(defaultSession: Session): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  installPermissionPolicy(defaultSession);
}
