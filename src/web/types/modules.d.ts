// Types for what the app uses of cm-chessboard (plain ES modules without declarations), and for
// the files esbuild bundles as URLs (SVG) or into the page's stylesheet (CSS).

declare module 'cm-chessboard/src/Chessboard.js' {
  export type BoardColor = 'w' | 'b';
  export const COLOR: { white: 'w'; black: 'b' };
  export const FEN: { start: string; empty: string };
  export const BORDER_TYPE: { none: 'none'; thin: 'thin'; frame: 'frame' };
  export const INPUT_EVENT_TYPE: {
    moveInputStarted: 'moveInputStarted';
    movingOverSquare: 'movingOverSquare';
    validateMoveInput: 'validateMoveInput';
    moveInputCanceled: 'moveInputCanceled';
    moveInputFinished: 'moveInputFinished';
  };
  export type MoveInputEvent = {
    type: (typeof INPUT_EVENT_TYPE)[keyof typeof INPUT_EVENT_TYPE];
    squareFrom: string;
    squareTo?: string;
    piece?: string;
    chessboard: Chessboard;
    /** Set false by a validator: the accepted click move is placed at once, not animated. */
    animate?: boolean;
  };
  export type MarkerType = { class: string; slice: string };
  export type PromotionResult = { type: 'pieceSelected'; square: string; piece: string } | { type: 'canceled' };
  export class Chessboard {
    constructor(context: HTMLElement, props?: object);
    setPosition(fen: string, animated?: boolean): Promise<void>;
    getPosition(): string;
    getPiece(square: string): string | null;
    setOrientation(color: BoardColor, animated?: boolean): Promise<void>;
    getOrientation(): BoardColor;
    enableMoveInput(handler: (event: MoveInputEvent) => boolean | void, color?: BoardColor): void;
    disableMoveInput(): void;
    cancelMoveInput(): void;
    isMoveInputEnabled(): boolean;
    destroy(): void;
    // Markers extension
    addMarker(type: MarkerType, square: string): void;
    removeMarkers(type?: MarkerType, square?: string): void;
    addLegalMovesMarkers(moves: { to: string; promotion?: string }[]): void;
    removeLegalMovesMarkers(): void;
    // PromotionDialog extension
    showPromotionDialog(square: string, color: BoardColor, callback: (result: PromotionResult) => void): void;
    isPromotionDialogShown(): boolean;
  }
}

declare module 'cm-chessboard/src/extensions/markers/Markers.js' {
  import type { MarkerType } from 'cm-chessboard/src/Chessboard.js';
  export class Markers {}
  export const MARKER_TYPE: Record<'frame' | 'framePrimary' | 'square' | 'dot' | 'bevel' | 'circle' | 'circlePrimary' | 'circleDanger', MarkerType>;
}

declare module 'cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js' {
  export class PromotionDialog {}
}

declare module 'cm-chessboard/src/extensions/accessibility/Accessibility.js' {
  export class Accessibility {}
}

declare module 'cm-chessboard/src/lib/Svg.js' {
  export class Svg {
    static createSvg(container?: Element): SVGSVGElement;
    static addElement(parent: Element, name: string, attributes?: Record<string, string | number>): SVGElement;
  }
}

declare module '*.svg' {
  const url: string;
  export default url;
}

declare module '*.css' {}

declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  const SwaggerUI: (options: Record<string, unknown>) => unknown;
  export default SwaggerUI;
}
