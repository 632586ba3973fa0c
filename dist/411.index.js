export const id = 411;
export const ids = [411];
export const modules = {

/***/ 9411:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   OutcomeFile: () => (/* binding */ OutcomeFile)
/* harmony export */ });
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(8816);
/* harmony import */ var _model_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(4146);
/**
 * The shape of `$FRONTIER_OUTCOME_FILE` (SPEC §6), as a zod schema. Its own module so
 * that a run whose executors never write one never loads zod (~60 ms of start-up).
 */


/** What the executor reports, when it writes `$FRONTIER_OUTCOME_FILE`. */
const OutcomeFile = zod__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({
    status: _model_js__WEBPACK_IMPORTED_MODULE_0__.Outcome,
    result: zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().optional(),
    question: zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().optional(),
    reason: zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP().optional(),
    // nothing an attempt reports gives a run's usage bound back what other attempts spent
    usage: zod__WEBPACK_IMPORTED_MODULE_1__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_1__/* .number */ .aig().nonnegative()).optional(),
});


/***/ })

};
