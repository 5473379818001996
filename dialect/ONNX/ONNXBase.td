//===- ONNXBase.td - The onnx dialect, its types and attributes -*- tablegen -*-===//
//
// Part of AMK. The hand-written half of the dialect: the dialect itself, the
// value types ONNX has and MLIR's builtins lack, the naming attributes that
// keep ONNX node and tensor names, and the structural ops (NoValue, Yield,
// Generic). The typed operator ops are generated into ONNXOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ONNX_BASE_TD
#define AMK_ONNX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::amk::onnx";
  let summary = "ONNX operators with the semantics of their opset version";
  let description = [{
    One typed op per ONNX operator of the default domain; each models every
    version of the operator live in opsets 7-21, and the version in force
    is the one selected by the `onnx.opset_import` attribute of the
    enclosing module. Operators of other domains, and operators without a
    typed op, are kept by `onnx.Generic`, so import is lossless.
  }];
  let hasCanonicalizer = 1;
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class ONNX_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<ONNX_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def ONNX_StringType : ONNX_Type<"String", "string"> {
  let summary = "ONNX string element type";
  let description = [{ The element type of `tensor(string)`. }];
}

def ONNX_SeqType : ONNX_Type<"Seq", "seq"> {
  let summary = "ONNX sequence of values";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_OptType : ONNX_Type<"Opt", "opt"> {
  let summary = "ONNX optional value";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_UnknownType : ONNX_Type<"Unknown", "unknown"> {
  let summary = "a value whose type the model does not state";
  let description = [{
    The type of a value produced by an operator of a custom domain when the
    model has no value_info for it. Shape inference may refine it; export
    writes no type for it.
  }];
}

def ONNX_Value : AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType,
                            ONNX_UnknownType], "ONNX value">;
def ONNX_OptValue : AnyTypeOf<[AnyTensor, ONNX_SeqType, ONNX_OptType,
                               ONNX_UnknownType, NoneType],
                              "ONNX value or none">;

// ONNX INT attributes are signed (axis = -1): an i64 attribute whose getter
// sign-extends, unlike the builtin I64Attr's uint64_t.
def ONNX_IntAttr : SignlessIntegerAttrBase<I64, "64-bit signed ONNX integer"> {
  let returnType = "int64_t";
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Naming attributes (used as FusedLoc metadata)
//===----------------------------------------------------------------------===//

def ONNX_NodeAttr : AttrDef<ONNX_Dialect, "Node"> {
  let mnemonic = "node";
  let summary = "names of an ONNX node and of the tensors it produces";
  let description = [{
    Attached to an op as the metadata of its fused location, so that every
    diagnostic and every export can name the ONNX node and its outputs:
    `loc(fused<#onnx.node<"conv1", ["x1"]>>["model.onnx":0:0])`.
    An empty output name marks an omitted optional output.
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::ArrayAttr":$outputs);
  let assemblyFormat = "`<` $name `,` $outputs `>`";
}

def ONNX_InitializerAttr : AttrDef<ONNX_Dialect, "Initializer"> {
  let mnemonic = "initializer";
  let summary = "name of an ONNX graph initializer";
  let description = [{
    Location metadata of an `onnx.Constant` that came from a graph
    initializer rather than from a Constant node; export writes it back as
    an initializer of that name.
  }];
  let parameters = (ins "::mlir::StringAttr":$name);
  let assemblyFormat = "`<` $name `>`";
}

//===----------------------------------------------------------------------===//
// Base op class and structural ops
//===----------------------------------------------------------------------===//

class ONNX_Op<string mnemonic, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, traits>;

def ONNX_NoValueOp : ONNX_Op<"NoValue", [Pure]> {
  let summary = "an omitted optional input or output";
  let description = [{
    ONNX marks an omitted optional input with an empty name; AMK passes a
    `none` value from this op instead, so every typed op keeps its operands
    at their ONNX positions.
  }];
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
}

def ONNX_YieldOp : ONNX_Op<"Yield", [Pure, ReturnLike, Terminator]> {
  let summary = "the outputs of an ONNX subgraph";
  let description = [{
    Terminates the body of an `If`, `Loop`, `Scan`, `SequenceMap` or
    `onnx.Generic` graph attribute. The names of the subgraph's outputs are
    kept in the op's location (`#onnx.node<"", [names]>`).
  }];
  let arguments = (ins Variadic<ONNX_Value>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def ONNX_GenericOp : ONNX_Op<"Generic", []> {
  let summary = "an ONNX node without a typed op";
  let description = [{
    Keeps any node losslessly: operators of other domains (ai.onnx.ml,
    com.microsoft, custom ones) and operators of the default domain that
    AMK has no typed op for. `onnx_attrs` holds the node's attributes with
    the same encoding as typed ops (INT: i64, FLOAT: f32, INTS: array<i64>,
    FLOATS: array<f32>, STRINGS: array of strings, TENSOR: elements);
    graph attributes are regions, named by `region_names`. Later stages
    reject it with a clear "unsupported operator" message.
  }];
  let arguments = (ins Variadic<ONNX_OptValue>:$inputs,
                   StrAttr:$op_type, StrAttr:$domain,
                   DictionaryAttr:$onnx_attrs,
                   StrArrayAttr:$region_names);
  let results = (outs Variadic<ONNX_OptValue>:$outputs);
  let regions = (region VariadicRegion<SizedRegion<1>>:$graphs);
  let hasVerifier = 1;
}

#endif // AMK_ONNX_BASE_TD
