// Package geom holds the small value types every other pleat package shares:
// Vec3 (a point or direction), Mat3 (a 3x3 matrix, row-major), Quat (a unit
// quaternion for rotations), Box (an axis-aligned bounding box) and the
// swing-twist decomposition of a rotation about an axis.
//
// Conventions:
//   - float64 throughout; SI units (metres, radians) unless a caller says otherwise.
//   - Right-handed coordinates, +Y up.
//   - All types are plain values: methods never modify their receiver, they
//     return a new value. No function keeps a reference to its arguments.
//   - Quaternions are (W, X, Y, Z) with W the scalar part; a rotation quaternion
//     is unit length. Quat.Rotate applies q v q*.
//   - Mat3 is row-major: M[r][c]. M.MulVec(v) is M·v (column vector convention).
package geom
